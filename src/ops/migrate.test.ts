import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateToLatest, openStorage, pendingMigrations, type Storage } from "../db";
import { startTestServer, type TestServer } from "../testing/server";
import { openReadOnly, tableExists } from "./sqlite";
import { runCli } from "../testing/cli";

const provider = (migrations: Record<string, Migration>): MigrationProvider => ({
  getMigrations: async () => migrations,
});

const notes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("notes")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("body", "text", (c) => c.notNull())
      .execute();
  },
};
const tags: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("tags")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .execute();
  },
};
const failing: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("half_done")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .execute();
    await sql`UPDATE notes SET body = 'overwritten'`.execute(db);
    await sql`DELETE FROM notes WHERE id = 2`.execute(db);
    throw new Error("boom in the middle");
  },
};

let server: TestServer;
let dir: string;
let storage: Storage;

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), "socialctl-migrate-test-"));
  storage = openStorage(join(dir, "social.db"));
});

afterAll(async () => {
  await storage.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("migrations", () => {
  test("a fresh database gets no snapshot", async () => {
    const result = await migrateToLatest(storage.db, { provider: provider({ "20990101000000_notes": notes }) });
    expect(result.snapshot).toBeNull();
    expect(result.results?.map((r) => [r.migrationName, r.status])).toEqual([["20990101000000_notes", "Success"]]);
    expect(existsSync(join(dir, "backups"))).toBe(false);
    await sql`INSERT INTO notes (id, body) VALUES (1, 'one'), (2, 'two')`.execute(storage.db);
  });

  test("pending migrations on a non-empty database: snapshot first, progress per migration", async () => {
    const events: Array<{ name: string; index: number; total: number; ms?: number }> = [];
    const result = await migrateToLatest(storage.db, {
      provider: provider({ "20990101000000_notes": notes, "20990102000000_tags": tags }),
      onProgress: (p) => events.push(p),
    });
    expect(result.results?.map((r) => r.migrationName)).toEqual(["20990102000000_tags"]);
    expect(events.map((e) => [e.name, e.index, e.total, e.ms === undefined])).toEqual([
      ["20990102000000_tags", 1, 1, true],
      ["20990102000000_tags", 1, 1, false],
    ]);
    expect(result.snapshot).toMatch(/\/backups\/pre-migrate-\d{8}T\d{6}\.\d{3}Z\.db$/);
    const snap = openReadOnly(result.snapshot!);
    try {
      expect(snap.query("SELECT body FROM notes ORDER BY id").all()).toEqual([{ body: "one" }, { body: "two" }]);
      expect(tableExists(snap, "tags")).toBe(false);
    } finally {
      snap.close();
    }
  });

  test("a failing migration leaves the database as it was", async () => {
    const all = provider({
      "20990101000000_notes": notes,
      "20990102000000_tags": tags,
      "20990103000000_broken": failing,
    });
    await expect(migrateToLatest(storage.db, { provider: all, snapshot: false })).rejects.toThrow(
      "migration 20990103000000_broken failed: boom in the middle",
    );
    const rows = await sql<{ id: number; body: string }>`SELECT id, body FROM notes ORDER BY id`.execute(storage.db);
    expect(rows.rows).toEqual([
      { id: 1, body: "one" },
      { id: 2, body: "two" },
    ]);
    const halfDone = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'`.execute(
      storage.db,
    );
    expect(halfDone.rows[0]!.n).toBe(0);
    expect(await pendingMigrations(storage.db, all)).toEqual(["20990103000000_broken"]);
  });

  test("only the newest three pre-migration snapshots are kept", async () => {
    for (let i = 4; i <= 7; i++) {
      const name = `2099010${i}000000_step`;
      const step: Migration = {
        up: async (db) => void (await sql.raw(`CREATE TABLE step_${i} (id INTEGER)`).execute(db)),
      };
      const steps: Record<string, Migration> = { "20990101000000_notes": notes, "20990102000000_tags": tags };
      for (let j = 4; j <= i; j++) steps[`2099010${j}000000_step`] = j === i ? step : { up: async () => {} };
      const result = await migrateToLatest(storage.db, { provider: provider(steps) });
      expect(result.results?.map((r) => r.migrationName)).toEqual([name]);
      await Bun.sleep(2); // distinct millisecond stamps
    }
    expect(readdirSync(join(dir, "backups")).filter((n) => n.startsWith("pre-migrate-"))).toHaveLength(3);
  });

  test("socialctl migrate on an up-to-date instance says so and exits 0", async () => {
    const run = await runCli(["--data-dir", server.dataDir, "--json", "migrate"]);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ applied: [], snapshot: null });
    const human = await runCli(["--data-dir", server.dataDir, "migrate"]);
    expect(human.stdout.trim()).toBe("Schema is up to date.");
  });
});
