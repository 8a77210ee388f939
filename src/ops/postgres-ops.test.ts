import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile, setConfigValue } from "../config";
import { isInitialised } from "../config/layout";
import { knownMigrationNames } from "../db";
import { silentLogger } from "../lib/log";
import { openApp } from "../wiring";
import type { App } from "../app";
import { makeUser } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { postgresBinDir } from "./postgres-tools";
import { readEntries } from "../testing/tar";
import { cliHarness, runCli } from "../testing/cli";
import { collectStatus } from "./status";
import { PG_DUMP_FILE, createBackup } from "./backup";
import { readyz } from "./health";
import { runDoctor } from "./doctor";

const cli = cliHarness();
const { expectOneLineFailure } = cli;

// the operations of an instance whose database.url names PostgreSQL
let dataDir: string;
let app: App;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-pgops-"));
  setConfigValue(dataDir, "database.url", await freshPostgresDatabase({ empty: true }));
  setConfigValue(dataDir, "database.poolSize", "3");
  app = await openApp({ dataDir, log: silentLogger });
  await makeUser(app, { username: "pg_person" });
});
afterAll(async () => {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  cli.cleanup();
});

describe("an instance on PostgreSQL", () => {
  test("is initialised without a SQLite file; /readyz checks PostgreSQL", async () => {
    expect(isInitialised(dataDir)).toBe(true);
    const res = await readyz(app);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready", checks: { database: "ok" } });
  });

  test("status names the engine and reads the counts and schema from PostgreSQL", async () => {
    const status = await collectStatus(dataDir);
    expect(status.initialised).toBe(true);
    expect(status.database.engine).toBe("postgres");
    expect(status.database.server).toMatch(/^PostgreSQL \d+/);
    expect(status.database.sizeBytes).toBeGreaterThan(0);
    expect(status.counts.accounts).toBe(1);
    expect(status.schema).toEqual({
      version: knownMigrationNames().at(-1)!,
      applied: knownMigrationNames().length,
      pending: [],
      unknown: [],
      level: knownMigrationNames().at(-1)!,
      minimum: null,
      problem: null,
    });
  });

  test("the instance keeps at most database.poolSize connections, however much it is asked at once", async () => {
    await Promise.all(Array.from({ length: 8 }, () => sql`select pg_sleep(0.05)`.execute(app.db)));
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()`.execute(app.db);
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(rows[0]!.n).toBeLessThanOrEqual(3);
  });

  test("doctor checks PostgreSQL instead of a database file", async () => {
    const checks = await runDoctor({ dataDir, timeUrl: undefined, timeoutMs: 2_000 });
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(checks.map((c) => c.name).slice(0, 7)).toEqual([
      "data dir",
      "permissions",
      "free disk",
      "database",
      "database integrity",
      "connections",
      "migrations",
    ]);
    expect(byName.database).toEqual({
      name: "database",
      status: "ok",
      detail: expect.stringMatching(/^PostgreSQL \d+.* reachable$/),
    });
    // the test cluster is made without data checksums, as initdb makes it by default
    expect(byName["database integrity"]).toMatchObject({
      status: "skipped",
      detail: expect.stringContaining("no data checksums"),
      fix: expect.stringContaining("pg_checksums --enable"),
    });
    expect(byName.connections).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(
        /^\d+ of 197 connections in use \(each node's pool holds up to 3, database\.poolSize\)$/,
      ),
    });
    expect(byName["free disk"]!.detail).toMatch(/free on the data dir's filesystem \(database \d+ MB\)/);
    expect(byName.migrations!.status).toBe("ok");
  });

  test("doctor fails a database it cannot write to (a standby, or read-only by default), saying what to do", async () => {
    const url = await freshPostgresDatabase();
    const name = new URL(url).pathname.slice(1);
    const admin = new Bun.SQL(url, { max: 1 });
    try {
      await admin.unsafe(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
    } finally {
      await admin.close();
    }
    const readOnlyDir = mkdtempSync(join(tmpdir(), "socialctl-pgops-ro-"));
    try {
      setConfigValue(readOnlyDir, "database.url", url);
      const checks = await runDoctor({ dataDir: readOnlyDir, timeUrl: undefined, timeoutMs: 2_000 });
      expect(checks.find((c) => c.name === "database")).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("read-only (default_transaction_read_only is on)"),
        fix: expect.stringContaining("primary"),
      });
    } finally {
      rmSync(readOnlyDir, { recursive: true, force: true });
    }
  });

  test("backup create holds a pg_dump of the database and says what it covers", async () => {
    const out = join(dataDir, "backups", "pg.tar.gz");
    const result = await createBackup({ dataDir, out });
    expect(result.manifest.database).toEqual({
      engine: "postgres",
      file: PG_DUMP_FILE,
      covers: expect.stringContaining("pg_dump custom format"),
    });
    expect(result.manifest.migrations).toEqual(knownMigrationNames());
    const entries = await readEntries(out);
    const dump = entries.find((e) => e.path === PG_DUMP_FILE)!;
    expect(dump.data.subarray(0, 5).toString()).toBe("PGDMP");
    // pg_restore reads its table of contents: the users table's data is in it
    const dumpFile = join(dataDir, "check.pgdump");
    await Bun.write(dumpFile, dump.data);
    const list = Bun.spawnSync([join(postgresBinDir()!, "pg_restore"), "--list", dumpFile]);
    expect(list.stdout.toString()).toContain("TABLE DATA public users");
  });

  test("backup restore puts the dump into an empty database with pg_restore; the restored instance serves its data", async () => {
    const out = join(dataDir, "backups", "pg-restore.tar.gz");
    await createBackup({ dataDir, out });
    const restoredDir = join(dataDir, "restored");
    // the database the archive's config names is the live one: not empty, so nothing happens
    const refused = await runCli(["--data-dir", restoredDir, "backup", "restore", out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/is not empty \(table .*\): restore into a new database/),
    ]);
    expect(existsSync(restoredDir)).toBe(false);
    await expectOneLineFailure(
      runCli(["--data-dir", restoredDir, "backup", "restore", out, "--database-url", "mysql://x"]),
      /database\.url/,
    );

    const target = await freshPostgresDatabase({ empty: true });
    const run = await runCli(["--data-dir", restoredDir, "--json", "backup", "restore", out, "--database-url", target]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ dataDir: restoredDir, replaced: false, databaseUrl: target });
    expect(readConfigFile(restoredDir)["database.url"]).toBe(target);
    expect(readFileSync(join(restoredDir, "secret"), "utf8")).toBe(readFileSync(join(dataDir, "secret"), "utf8"));
    expect(existsSync(join(restoredDir, PG_DUMP_FILE))).toBe(false);
    const restored = await openApp({ dataDir: restoredDir, log: silentLogger });
    try {
      expect(restored.storage.engine).toBe("postgres");
      const people = await restored.db.selectFrom("users").select("username").execute();
      expect(people.map((p) => p.username)).toContain("pg_person");
      // identity sequences came along: a new row takes the next key
      const ids = (await restored.db.selectFrom("users").select("id").execute()).map((u) => u.id);
      expect((await makeUser(restored, { username: "after_restore" })).id).toBeGreaterThan(Math.max(...ids));
    } finally {
      await restored.close();
    }
    // a second restore into the now filled database refuses it too
    await expectOneLineFailure(
      runCli(["--data-dir", join(dataDir, "again"), "backup", "restore", out, "--database-url", target]),
      /is not empty/,
    );
  }, 120_000);
});
