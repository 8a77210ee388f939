import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { cliHarness } from "../../src/testing/cli";
import { startTestSmtp } from "../../src/testing/smtp";
import { startTestRedis } from "../../src/testing/redis";
import { startTestS3 } from "../../src/testing/s3";

const { dataDir, run, runJson, cleanup } = cliHarness();
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
beforeAll(async () => {
  expect((await run("init", "--yes")).code).toBe(0);
  smtp = await startTestSmtp({ user: "relay", password: "relay-pass", starttls: false });
});
afterAll(async () => {
  await smtp.stop();
  cleanup();
});

let removedMigration = "";
type Finding = { name: string; status: string; detail: string; fix?: string };
const byName = (checks: Finding[]): Record<string, Finding> => Object.fromEntries(checks.map((c) => [c.name, c]));

describe("socialctl doctor", () => {
  test("a fresh instance passes; checks without a subject are skipped, saying why", async () => {
    const r = await runJson("doctor");
    expect(r.code).toBe(0);
    expect(r.json.ok).toBe(true);
    const c = byName(r.json.checks);
    expect(Object.keys(c)).toEqual([
      "data dir",
      "permissions",
      "free disk",
      "database integrity",
      "migrations",
      "reverse proxy",
      "ffmpeg",
      "smtp",
      "clock",
      "pub/sub",
      "file store",
    ]);
    for (const name of ["data dir", "permissions", "free disk", "database integrity", "migrations"])
      expect(c[name]!.status).toBe("ok");
    expect(c.smtp).toMatchObject({ status: "skipped", detail: expect.stringContaining("smtp.host is not set") });
    expect(c["pub/sub"]).toMatchObject({ status: "skipped", detail: expect.stringContaining("pubsub.url is not set") });
    expect(c["file store"]).toMatchObject({
      status: "skipped",
      detail: expect.stringContaining("files.s3.bucket is not set"),
    });
  });

  test("each problem is named with what to do, and a failure exits 1", async () => {
    chmodSync(join(dataDir, "social.db"), 0o644);
    const db = new Database(join(dataDir, "social.db"));
    const last = (db.query("SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1").get() as { name: string })
      .name;
    // as if this binary were newer than the database: its last migration not applied yet
    db.query("DELETE FROM kysely_migration WHERE name = ?").run(last);
    removedMigration = last;
    db.close();
    for (const [k, v] of [
      ["smtp.host", "127.0.0.1"],
      ["smtp.port", String(smtp.port)],
      ["smtp.user", "relay"],
      ["smtp.password", "wrong"],
    ])
      expect((await run("config", "set", k!, v!)).code).toBe(0);
    // a time server five minutes ahead
    const clock = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response(null, { headers: { date: new Date(Date.now() + 300_000).toUTCString() } }),
    });
    try {
      const r = await runJson("doctor", "--time-url", `http://127.0.0.1:${clock.port}/`);
      expect(r.code).toBe(1);
      expect(r.json.ok).toBe(false);
      const c = byName(r.json.checks);
      // the WAL and shm files SQLite made since took the database file's mode
      expect(c.permissions).toMatchObject({
        status: "warn",
        detail: expect.stringContaining("social.db (644)"),
        fix: expect.stringMatching(new RegExp(`^chmod 600 ${join(dataDir, "social.db")}( |$)`)),
      });
      expect(c.migrations).toMatchObject({
        status: "warn",
        detail: expect.stringContaining(`: 1 pending: ${last}`),
        fix: expect.stringContaining("socialctl migrate"),
      });
      expect(c.smtp).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("535"),
        fix: expect.stringContaining("smtp.password"),
      });
      expect(c.clock).toMatchObject({
        status: "fail",
        detail: expect.stringMatching(/^(299|300|301) s behind 127\.0\.0\.1/),
        fix: expect.stringContaining("time synchronisation"),
      });
      const human = await run("doctor", "--time-url", `http://127.0.0.1:${clock.port}/`);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain("WARN  permissions: readable by others: social.db (644)");
      expect(human.stdout).toContain(`      → chmod 600 ${join(dataDir, "social.db")}`);
    } finally {
      clock.stop(true);
    }
  });

  test("a reachable SMTP server with the right login passes; the fixes clear the warnings", async () => {
    for (const f of ["social.db", "social.db-wal", "social.db-shm"]) chmodSync(join(dataDir, f), 0o600);
    expect((await run("config", "set", "smtp.password", "relay-pass")).code).toBe(0);
    // the migration's changes are all there: only its record was taken away
    const db = new Database(join(dataDir, "social.db"));
    db.query("INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)").run(
      removedMigration,
      new Date().toISOString(),
    );
    db.close();
    const c = byName((await runJson("doctor")).json.checks);
    expect(c.smtp).toMatchObject({ status: "ok", detail: `127.0.0.1:${smtp.port} accepts a connection and the login` });
    expect(c.permissions!.status).toBe("ok");
    expect(c.migrations!.status).toBe("ok");
  });

  test("with Redis and a bucket configured, doctor and status ask both, and name the one that does not answer", async () => {
    const redis = await startTestRedis();
    const s3 = await startTestS3();
    try {
      const settings: Array<[string, string]> = [
        ["pubsub.url", redis.url],
        ...Object.entries(s3.settings).map(([k, v]): [string, string] => [k, String(v)]),
      ];
      for (const [k, v] of settings) expect((await run("config", "set", k, v)).code).toBe(0);
      const healthy = byName((await runJson("doctor")).json.checks);
      expect(healthy["pub/sub"]).toMatchObject({ status: "ok", detail: `redis ${redis.url} answers` });
      expect(healthy["file store"]).toMatchObject({ status: "ok", detail: `s3 bucket ${s3.bucket} answers` });
      const status = (await runJson("status")).json;
      expect(status.engines).toEqual({
        pubsub: { engine: "redis", url: redis.url, problem: null },
        files: { engine: "s3", endpoint: s3.endpoint, bucket: s3.bucket, problem: null },
      });
      expect((await run("status")).stdout).toContain(`pub/sub: redis ${redis.url} (ok)`);

      await redis.stop();
      expect((await run("config", "set", "files.s3.bucket", "no-such-bucket")).code).toBe(0);
      const r = await runJson("doctor");
      expect(r.code).toBe(1);
      const broken = byName(r.json.checks);
      expect(broken["pub/sub"]).toMatchObject({ status: "fail", fix: expect.stringContaining("pubsub.url") });
      expect(broken["file store"]).toMatchObject({ status: "fail", fix: expect.stringContaining("files.s3.bucket") });
      expect((await run("status")).stdout).toContain("pub/sub: redis");
      expect((await runJson("status")).json.engines.pubsub.problem).toStartWith("redis: ");
    } finally {
      for (const k of ["pubsub.url", "files.s3.bucket"]) await run("config", "set", k, "");
      await redis.stop();
      await s3.stop();
    }
  }, 90_000);

  test("a damaged database fails the integrity check", async () => {
    const db = new Database(join(dataDir, "social.db"));
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.close();
    // scribble over the middle of the file, leaving the header intact
    const file = Bun.file(join(dataDir, "social.db"));
    const bytes = new Uint8Array(await file.arrayBuffer());
    const pageSize = bytes.length / pages;
    for (let i = pageSize * 3; i < pageSize * 6 && i < bytes.length; i++) bytes[i] = 0x5a;
    await Bun.write(join(dataDir, "social.db"), bytes);
    const r = await runJson("doctor");
    expect(r.code).toBe(1);
    expect(byName(r.json.checks)["database integrity"]).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("backup restore"),
    });
  });
});
