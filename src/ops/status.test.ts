import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knownMigrationNames, migrateToLatest, openStorage } from "../db";
import { storeUpload } from "../media/uploads";
import { makeUser } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { startTestServer, type TestServer } from "../testing/server";
import { createBackup } from "./backup";
import { parseDurationSeconds } from "../lib/duration";
import { SERVER_LOCK_FILE } from "../config/layout";
import { claimServerLock, readServerLock } from "./server-lock";
import { runCli } from "../testing/cli";

let server: TestServer;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer();
  claimServerLock(server);
  scratch = mkdtempSync(join(tmpdir(), "socialctl-status-test-"));
  const owner = await makeUser(server.app);
  await makeUser(server.app);
  await storeUpload(server.app, { ownerId: owner.id, kind: "avatar", data: await pngOf(server.app, 40, 30) });
});

afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("socialctl status", () => {
  test("--json reports the running server, sizes, counts, schema and last backup", async () => {
    let run = await runCli(["--data-dir", server.dataDir, "--json", "status"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const s = run.json;
    expect(s.version).toBe("0.1.0");
    expect(s.dataDir).toBe(server.dataDir);
    expect(s.initialised).toBe(true);
    expect(s.server.running).toBe(true);
    expect(s.server.pid).toBe(process.pid);
    expect(s.server.url).toBe(server.url);
    expect(s.server.healthy).toBe(true);
    // what the server says of itself: it can serve, and it uses no shared engine
    expect(s.server.readiness).toEqual({ status: "ready", checks: { database: "ok" } });
    expect(s.server.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(s.database.sizeBytes).toBeGreaterThan(0);
    expect(s.database.walSizeBytes).toBeGreaterThanOrEqual(0);
    expect(s.files.count).toBe(2); // the avatar and its thumbnail
    expect(s.files.totalBytes).toBeGreaterThan(0);
    expect(s.files.byKind.avatar.count).toBe(1);
    const accounts = await server.app.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("is_bot", "=", 0)
      .where("is_system", "=", 0)
      .executeTakeFirstOrThrow();
    expect(s.counts.accounts).toBe(Number(accounts.n));
    expect(s.counts.accounts).toBeGreaterThanOrEqual(2);
    expect(s.counts.posts).toBe(0);
    expect(s.counts.bots).toBe(0);
    expect(s.counts.queuedBotUpdates).toBe(0);
    expect(s.schema).toEqual({
      version: knownMigrationNames().at(-1),
      applied: knownMigrationNames().length,
      pending: [],
      unknown: [],
      level: knownMigrationNames().at(-1),
      minimum: null,
      problem: null,
    });
    // the running server recorded itself as a node
    expect(s.nodes).toEqual([expect.objectContaining({ id: expect.stringMatching(/:\d+$/), version: "0.1.0" })]);
    expect(s.lastBackup).toBeNull();

    const backup = await createBackup({ dataDir: server.dataDir });
    run = await runCli(["--data-dir", server.dataDir, "--json", "status"]);
    expect(run.json.lastBackup.path).toBe(backup.path);
    expect(run.json.lastBackup.sizeBytes).toBe(backup.sizeBytes);

    const human = await runCli(["--data-dir", server.dataDir, "status"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`server: running (pid ${process.pid}, ${server.url}), up `);
    expect(human.stdout).toContain(`last backup: ${backup.manifest.createdAt}`);
  });

  test("an empty data dir: not initialised, every migration pending, exit 0", async () => {
    const run = await runCli(["--data-dir", join(scratch, "empty"), "--json", "status"]);
    expect(run.code).toBe(0);
    expect(run.json.initialised).toBe(false);
    expect(run.json.server).toEqual({ running: false });
    expect(run.json.schema.pending).toEqual(knownMigrationNames());
    expect(run.json.counts.accounts).toBeNull();
  });

  test("a stale pid file does not count as a running server", async () => {
    const dir = join(scratch, "stale");
    const storage = openStorage(join(dir, "social.db"));
    await migrateToLatest(storage.db);
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('29991231235959_from_the_future', '2999-12-31')`.execute(
      storage.db,
    );
    await storage.close();
    writeFileSync(
      join(dir, SERVER_LOCK_FILE),
      JSON.stringify({ pid: 2 ** 22 + 12345, url: "http://127.0.0.1:1", startedAt: "2026-01-01T00:00:00.000Z" }),
    );
    expect(readServerLock(dir)).toBeNull();
    const run = await runCli(["--data-dir", dir, "--json", "status"]);
    expect(run.code).toBe(0);
    expect(run.json.server.running).toBe(false);
    expect(run.json.schema.unknown).toEqual(["29991231235959_from_the_future"]);
    expect(run.json.schema.version).toBe("29991231235959_from_the_future");
    const human = await runCli(["--data-dir", dir, "status"]);
    expect(human.stdout).toContain(
      "note: the database has migrations of a newer socialctl (29991231235959_from_the_future), none breaking this one",
    );
  });

  test("a second server refuses to start on a data dir that has a live one", () => {
    expect(readServerLock(server.dataDir)?.pid).toBe(process.pid);
    // another live process (our parent) holds the data dir
    writeFileSync(
      join(server.dataDir, SERVER_LOCK_FILE),
      JSON.stringify({ pid: process.ppid, url: "http://127.0.0.1:9", startedAt: "2026-01-01T00:00:00.000Z" }),
    );
    expect(() => claimServerLock(server)).toThrow(
      `a server (pid ${process.ppid}, http://127.0.0.1:9) is running on ${server.dataDir}: stop it before starting another`,
    );
    rmSync(join(server.dataDir, SERVER_LOCK_FILE));
    claimServerLock(server);
    expect(readServerLock(server.dataDir)?.url).toBe(server.url);
  });
});

describe("backup schedule settings", () => {
  test("backup.every takes seconds or a unit, and 0 turns it off", async () => {
    expect(parseDurationSeconds("0")).toBe(0);
    expect(parseDurationSeconds("90")).toBe(90);
    expect(parseDurationSeconds("30m")).toBe(1800);
    expect(parseDurationSeconds("6h")).toBe(21600);
    expect(parseDurationSeconds("1d")).toBe(86400);
    expect(() => parseDurationSeconds("6 hours")).toThrow(
      'must be 0 (off), seconds, or a number with s, m, h or d (e.g. "6h")',
    );
    expect(() => parseDurationSeconds("400d")).toThrow("must be at most 366 days");
    const dir = join(scratch, "config");
    let run = await runCli(["--data-dir", dir, "--json", "config", "set", "backup.every", "6h"]);
    expect(run.json).toEqual({ key: "backup.every", value: 21600 });
    run = await runCli(["--data-dir", dir, "config", "set", "backup.every", "soon"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('config key "backup.every" must be 0 (off)');
    run = await runCli(["--data-dir", dir, "config", "set", "backup.keep", "0"]);
    expect(run.code).toBe(1);
  });
});
