import { afterAll, describe, expect, test } from "bun:test";
import type { Kysely, MigrationProvider } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../config/layout";
import { knownMigrationNames, migrateToLatest } from "../db";
import { migrations } from "../db/migrations";
import type { GuardedMigration } from "../db/schema-guard";
import { makeUser } from "../testing/fixtures";
import { runCli as runCliBounded } from "../testing/cli";
import { startTestServer, type TestServer } from "../testing/server";

/**
 * An "older binary" is the server started with the migrations it was built with; the database
 * is migrated by a "newer" one, whose provider adds one migration after them: additive (a
 * table older code never reads) or marked breaking.
 */
const NEWER = "29990101000000_newer_release";

function newerRelease(breaksOlderCode: boolean): MigrationProvider {
  const extra: GuardedMigration & { breaksOlderCode: boolean } = {
    breaksOlderCode,
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("newer_release_things")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .execute();
    },
  };
  return { getMigrations: async () => ({ ...migrations, [NEWER]: extra }) };
}

const OLDER_LEVEL = knownMigrationNames().at(-1)!;

/** Each test runs several `socialctl` processes (a cold start each, PostgreSQL included): a loaded machine's figures. */
const CLI_MS = 60_000;
const TEST_MS = 180_000;
const runCli = (args: string[]) => runCliBounded(args, { timeoutMs: CLI_MS });
const dirs: string[] = [];

/** A data dir whose database the newer release migrated (its node started and stopped again). */
async function migratedByNewer(breaking: boolean): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-schema-guard-"));
  dirs.push(dataDir);
  const newer = await startTestServer({}, { dataDir, migrations: newerRelease(breaking) });
  await newer.stop();
  return dataDir;
}

async function readyz(server: TestServer): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, body: await res.json() };
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the schema compatibility guard", () => {
  test(
    "an older binary refuses a database a newer one marked incompatible: before migrating, serve exits 1",
    async () => {
      const dataDir = await migratedByNewer(true);
      const refusal =
        `the database was migrated by socialctl ${VERSION} past what this socialctl ${VERSION} can use ` +
        `(it requires schema ${NEWER}, this binary knows up to ${OLDER_LEVEL}): run socialctl ${VERSION} or newer on this node`;
      await expect(startTestServer({}, { dataDir })).rejects.toThrow(refusal);

      const serve = await runCli(["--data-dir", dataDir, "serve", "--port", "0", "--host", "127.0.0.1"]);
      expect(serve.code).toBe(1);
      expect(serve.stderr.trim()).toBe(`socialctl: ${refusal}`);
      const migrate = await runCli(["--data-dir", dataDir, "migrate"]);
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain(refusal);

      const status = await runCli(["--data-dir", dataDir, "--json", "status"]);
      expect(status.code).toBe(0);
      expect(status.json.schema).toMatchObject({
        version: NEWER,
        level: OLDER_LEVEL,
        unknown: [NEWER],
        minimum: { schema: NEWER, version: VERSION },
        problem: refusal,
      });
      // the newer node recorded itself, with the schema it knows
      expect(status.json.nodes).toEqual([
        expect.objectContaining({ version: VERSION, schema: NEWER, seenAt: expect.any(Number) }),
      ]);
      const human = await runCli(["--data-dir", dataDir, "status"]);
      expect(human.stdout).toContain(
        `schema: ${NEWER} (this socialctl knows up to ${OLDER_LEVEL}; the database requires ${NEWER} or newer, from socialctl ${VERSION})`,
      );
      expect(human.stdout).toContain(`ERROR: ${refusal}`);
      expect(human.stdout).toMatch(
        new RegExp(`^  \\S+:\\d+: socialctl ${VERSION} \\(schema ${NEWER}\\), last seen `, "m"),
      );
    },
    TEST_MS,
  );

  test(
    "an older binary serves a database a newer one migrated additively, and leaves its migration alone",
    async () => {
      const dataDir = await migratedByNewer(false);
      const older = await startTestServer({}, { dataDir });
      try {
        expect(await readyz(older)).toEqual({ status: 200, body: { status: "ready", checks: { database: "ok" } } });
        // writes go through on the schema the newer binary left
        await makeUser(older.app);
        const applied = await (older.app.db as Kysely<any>).selectFrom("kysely_migration").select("name").execute();
        expect(applied.map((r) => r.name)).toContain(NEWER);

        const status = await runCli(["--data-dir", dataDir, "--json", "status"]);
        expect(status.json.schema).toMatchObject({ version: NEWER, level: OLDER_LEVEL, minimum: null, problem: null });
        const ids = (status.json.nodes as Array<{ id: string; schema: string }>).map((n) => n.schema).sort();
        // the newer node (stopped) and this one are each listed with what they know
        expect(ids).toEqual([NEWER, OLDER_LEVEL].sort());
        const human = await runCli(["--data-dir", dataDir, "status"]);
        expect(human.stdout).toContain(
          `note: the database has migrations of a newer socialctl (${NEWER}), none breaking`,
        );
      } finally {
        await older.stop();
      }
    },
    TEST_MS,
  );

  test(
    "a node whose database another node migrates past it turns unready, with the reason",
    async () => {
      const older = await startTestServer();
      try {
        expect((await readyz(older)).status).toBe(200);
        // the newer node, on the same database, applies its breaking migration
        await migrateToLatest(older.app.db, { provider: newerRelease(true), snapshot: false });
        let probe = await readyz(older);
        for (let i = 0; i < 60 && probe.status === 200; i++) {
          await Bun.sleep(200);
          probe = await readyz(older);
        }
        expect(probe.status).toBe(503);
        expect(probe.body).toEqual({
          status: "unavailable",
          checks: { database: "ok", schema: expect.stringContaining(`it requires schema ${NEWER}`) },
        });
      } finally {
        await older.stop();
      }
    },
    TEST_MS,
  );

  test(
    "doctor names this binary's version and the database's newest migration and minimum",
    async () => {
      const dataDir = await migratedByNewer(true);
      const doctor = await runCli(["--data-dir", dataDir, "--json", "doctor"]);
      const check = (doctor.json.checks as Array<{ name: string; status: string; detail: string; fix: string }>).find(
        (c) => c.name === "migrations",
      );
      expect(check).toMatchObject({
        status: "fail",
        detail: expect.stringContaining(
          `this socialctl ${VERSION} knows schema up to ${OLDER_LEVEL}; the database's newest is ${NEWER}, its minimum ${NEWER} (socialctl ${VERSION})`,
        ),
        fix: `run socialctl ${VERSION} or newer against this database`,
      });
    },
    TEST_MS,
  );
});
