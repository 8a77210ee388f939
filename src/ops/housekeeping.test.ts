import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../lib/log";
import { signedInClient } from "../testing/fixtures";
import { testsOnPostgres } from "../testing/postgres";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { redactPath } from "../http/server";
import { cleanupTasks, registerCleanup, runCleanup } from "./housekeeping";
import { WAL_BYTES } from "./checkpointer";

const lines: string[] = [];
let server: TestServer;

beforeAll(async () => {
  // a scheduled backup every 2 s, so the schedule can be seen working
  server = await startTestServer(
    { "backup.every": "2s", "backup.keep": 2 },
    { log: createLogger({ level: "debug", sink: (l) => lines.push(l) }) },
  );
});

afterAll(() => server.stop());

const requestLines = () => lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");

describe("GET /healthz", () => {
  test("answers status, version and uptime without auth", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string; uptimeSeconds: number };
    expect(body).toEqual({ status: "ok", version: "0.1.0", uptimeSeconds: expect.any(Number) });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });
});

describe("request logs", () => {
  test("one JSON line per request with method, path, status and duration; bot tokens and cookies never appear", async () => {
    const token = "123456789:AAHsecretTOKENpart_xyz";
    const { client } = await signedInClient(server);
    lines.length = 0;
    const bot1 = await fetch(`${server.url}/bot${token}/getMe`);
    const bot2 = await fetch(`${server.url}/api/bot/${token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const bot3 = await fetch(`${server.url}/api/bot${encodeURIComponent(token)}/getUpdates?offset=1`);
    const me = await client.get("/api/auth/me");
    const forged = await fetch(`${server.url}/api/auth/me`, {
      headers: { cookie: "auth_access_token=COOKIEsecretVALUE; auth_refresh_token=REFRESHsecretVALUE" },
    });
    expect(me.status).toBe(200);
    expect(forged.status).toBe(401);
    await waitFor(() => requestLines().length >= 5, 10_000, "five request log lines");

    const logged = requestLines();
    expect(logged.map((r) => r.path)).toEqual([
      "/bot<redacted>/getMe",
      "/api/bot/<redacted>/sendMessage",
      "/api/bot<redacted>/getUpdates",
      "/api/auth/me",
      "/api/auth/me",
    ]);
    expect(logged.map((r) => r.status)).toEqual([bot1.status, bot2.status, bot3.status, 200, 401]);
    expect(logged.map((r) => r.method)).toEqual(["GET", "POST", "GET", "GET", "GET"]);
    for (const r of logged) {
      expect(r.level).toBe("info");
      expect(typeof r.ms).toBe("number");
      expect(Date.parse(r.time)).toBeGreaterThan(0);
    }
    const all = lines.join("\n");
    for (const secret of [
      "AAHsecretTOKENpart_xyz",
      "123456789:",
      "COOKIEsecretVALUE",
      "REFRESHsecretVALUE",
      ...client.cookies.values(),
    ]) {
      expect(all).not.toContain(secret);
    }
  });

  test("redaction touches only token paths", () => {
    expect(redactPath("/bot1:abc/getMe")).toBe("/bot<redacted>/getMe");
    expect(redactPath("/api/bot/1:abc/getMe")).toBe("/api/bot/<redacted>/getMe");
    expect(redactPath("/api/bot1%3Aabc/getMe")).toBe("/api/bot<redacted>/getMe");
    expect(redactPath("/file/bot1:abc/x.png")).toBe("/file/bot<redacted>/x.png");
    expect(redactPath("/api/bots/mine")).toBe("/api/bots/mine");
    expect(redactPath("/api/social/users/botfather/message")).toBe("/api/social/users/botfather/message");
    expect(redactPath("/files/ab/abcdef.png")).toBe("/files/ab/abcdef.png");
    expect(redactPath("//bots/mine")).toBe("//bots/mine");
    expect(redactPath("/Bots")).toBe("/Bots");
    expect(redactPath("/files/ab/abcdefghijklmnopqrstuvwx.png")).toBe("/files/ab/abcdefghijklmnopqrstuvwx.png");
  });
});

describe("housekeeping", () => {
  // SQLite's WAL (PostgreSQL checkpoints by itself)
  test.skipIf(testsOnPostgres())(
    "the database task checkpoints the WAL; commits never checkpoint themselves",
    async () => {
      const pragma = (name: string) =>
        Object.values(server.app.storage.sqlite!.query(`PRAGMA ${name}`).get() as object)[0];
      await waitFor(() => pragma("wal_autocheckpoint") === 0, 3000, "wal_autocheckpoint = 0");
      // nor cut the WAL file when they start the log over (the worker does, once writes pause)
      expect(pragma("journal_size_limit")).toBe(-1);
      server.app.storage.sqlite!.exec("CREATE TABLE IF NOT EXISTS hk_rows (id INTEGER PRIMARY KEY, v TEXT)");
      const insert = server.app.storage.sqlite!.prepare("INSERT INTO hk_rows (v) VALUES (?)");
      for (let i = 0; i < 200; i++) insert.run("x".repeat(200));
      // a scheduled backup's snapshot (a reader in another process) can hold the WAL for a moment
      let checkpointed = 0;
      for (let i = 0; i < 60 && checkpointed === 0; i++) {
        const run = await runCleanup(server.app, "database");
        expect(run.ok).toBe(true);
        checkpointed = run.result ?? 0;
        if (!checkpointed) await Bun.sleep(50);
      }
      expect(checkpointed).toBeGreaterThan(0);
      expect(cleanupTasks(server.app).find((t) => t.name === "database")?.everyMs).toBe(600_000);
    },
  );

  test.skipIf(testsOnPostgres())(
    "the worker folds a large WAL on its own and, once the writes pause, cuts the file",
    async () => {
      const wal = join(server.dataDir, "social.db-wal");
      const insert = server.app.storage.sqlite!.prepare("INSERT INTO hk_rows (v) VALUES (?)");
      for (let i = 0; i < 1500; i++) insert.run("y".repeat(4000)); // ≈ 6 MB of WAL, over the mark
      expect(statSync(wal).size).toBeGreaterThan(WAL_BYTES);
      await waitFor(() => statSync(wal, { throwIfNoEntry: false })?.size === 0, 8000, "the WAL to be cut");
      // the next commit writes a new log
      insert.run("z");
      expect(statSync(wal).size).toBeGreaterThan(0);
    },
    15_000,
  );

  test("registered cleanups run on their period; failures are logged and reported, not thrown", async () => {
    let runs = 0;
    registerCleanup(server.app, "test:counter", 30, () => {
      runs++;
      return runs;
    });
    await waitFor(() => runs >= 2, 3000, "two runs of test:counter");

    registerCleanup(server.app, "test:broken", 60_000, () => {
      throw new Error("cleanup exploded");
    });
    const run = await runCleanup(server.app, "test:broken");
    expect(run).toEqual({ name: "test:broken", ok: false, error: "cleanup exploded", ms: expect.any(Number) });
    expect(lines.some((l) => l.includes('"msg":"cleanup failed"') && l.includes('"cleanup":"test:broken"'))).toBe(true);
    expect(cleanupTasks(server.app).find((t) => t.name === "test:broken")?.last?.ok).toBe(false);
  });

  test("bad registrations are refused", () => {
    expect(() => registerCleanup(server.app, "test:counter", 1000, () => {})).toThrow(
      "cleanup test:counter is registered twice",
    );
    expect(() => registerCleanup(server.app, "test:zero", 0, () => {})).toThrow(
      "cleanup test:zero: everyMs must be a positive number",
    );
    expect(() => runCleanup(server.app, "nope")).toThrow("no cleanup named nope");
  });
});

describe("scheduled backups", () => {
  test("the serving process writes backups on its schedule and keeps backup.keep of them", async () => {
    const dir = join(server.dataDir, "backups");
    const archives = () => (existsSync(dir) ? readdirSync(dir).filter((n) => /^backup-.+\.tar\.gz$/.test(n)) : []);
    // each backup is a child process that starts socialctl again: slow on a loaded machine
    await waitFor(() => lines.some((l) => l.includes("scheduled backup created")), 25_000, "a scheduled backup");
    expect(archives().length).toBeGreaterThanOrEqual(1);
    expect(archives().length).toBeLessThanOrEqual(2);
    const line = JSON.parse(lines.find((l) => l.includes("scheduled backup created"))!);
    expect(line.path).toStartWith(dir);
    expect(line.sizeBytes).toBeGreaterThan(0);
  });
});
