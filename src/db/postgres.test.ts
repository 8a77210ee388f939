import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import {
  knownMigrationNames,
  migrateToLatest,
  openPostgresStorage,
  openStorage,
  pendingMigrations,
  type Storage,
} from "./index";
import { engineOf } from "./engine";
import { inTransaction } from "./transaction";
import { precompiled } from "./compiled";
import { freshPostgresDatabase } from "../testing/postgres";
import { waitFor } from "../testing/wait";

let pg: Storage;
beforeAll(async () => {
  pg = openPostgresStorage(await freshPostgresDatabase({ empty: true }));
});
afterAll(() => pg.close());

describe("PostgreSQL storage", () => {
  test("the migrations run the same history as on SQLite, and again find nothing to do", async () => {
    expect(engineOf(pg.db)).toBe("postgres");
    expect(await pendingMigrations(pg.db)).toEqual(knownMigrationNames());
    const { results, snapshot } = await migrateToLatest(pg.db);
    // a failed migration rolls back whole on PostgreSQL: no file snapshot is taken
    expect(snapshot).toBeNull();
    expect(results!.map((r) => [r.migrationName, r.status])).toEqual(knownMigrationNames().map((n) => [n, "Success"]));
    expect(await pendingMigrations(pg.db)).toEqual([]);
    expect((await migrateToLatest(pg.db)).results).toEqual([]);
  });

  test("the same tables and columns as SQLite, integers 64-bit, ids generated", async () => {
    const lite = openStorage(":memory:");
    await migrateToLatest(lite.db, { snapshot: false });
    // the search indexes and what feeds them are each engine's own
    const engineOwn = /_fts($|_)|^messages_search_changes$/;
    const liteTables = (await lite.db.introspection.getTables()).filter((t) => !engineOwn.test(t.name));
    const pgTables = (await pg.db.introspection.getTables()).filter((t) => !engineOwn.test(t.name));
    const shape = (tables: typeof liteTables) =>
      Object.fromEntries(tables.map((t) => [t.name, t.columns.map((c) => c.name).sort()]));
    expect(shape(pgTables)).toEqual(shape(liteTables));
    await lite.close();
    const big = 7_000_000_000_123;
    const [row] = await pg.db
      .insertInto("users")
      .values({
        cuid: "c1",
        username: "big",
        username_lower: "big",
        display_name: "Big",
        created_at: big,
        updated_at: big,
      })
      .returning(["id", "created_at", "is_admin"])
      .execute();
    expect(row).toEqual({ id: expect.any(Number), created_at: big, is_admin: 0 });
    const counted = await pg.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(counted.n).toBe(1);
  });

  test("transactions commit or roll back whole; a savepoint keeps the transaction usable after a unique violation", async () => {
    const values = (username: string) => ({
      cuid: `c-${username}`,
      username,
      username_lower: username,
      display_name: username,
      created_at: 1,
      updated_at: 1,
    });
    await expect(
      inTransaction(pg, async ({ db }) => {
        await db.insertInto("users").values(values("gone")).execute();
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect(await pg.db.selectFrom("users").select("id").where("username", "=", "gone").execute()).toEqual([]);
    const trx = await pg.db.startTransaction().execute();
    await trx.insertInto("users").values(values("kept")).execute();
    const sp = await trx.savepoint("again").execute();
    await expect(sp.insertInto("users").values(values("kept")).execute()).rejects.toThrow(/duplicate key/);
    await sp.rollbackToSavepoint("again").execute();
    await trx.insertInto("users").values(values("after")).execute();
    await trx.commit().execute();
    const names = await pg.db
      .selectFrom("users")
      .select("username")
      .where("username", "in", ["kept", "after"])
      .execute();
    expect(names.map((r) => r.username).sort()).toEqual(["after", "kept"]);
  });

  test("a transaction's BEGIN goes with its first SELECT: both in one transaction, and one that runs nothing sends nothing", async () => {
    const transactionId = async (db: typeof pg.db) =>
      (await sql<{ id: string | null }>`select txid_current_if_assigned()::text as id`.execute(db)).rows[0]!.id;
    const inside = async (db: typeof pg.db) =>
      (await sql<{ open: boolean }>`select now() = statement_timestamp() as open`.execute(db)).rows[0]!.open;
    await pg.db.transaction().execute(async (tx) => {
      // a transaction's now() is its start, before the second statement's own timestamp
      expect(await transactionId(tx)).toBeNull();
      await Bun.sleep(5);
      expect(await inside(tx)).toBe(false);
    });
    // a first statement that writes waits for BEGIN: rolled back with the rest
    await expect(
      pg.db.transaction().execute(async (tx) => {
        await sql`insert into users (cuid, username, username_lower, display_name, created_at, updated_at)
          values ('c-begun', 'begun', 'begun', 'begun', 1, 1)`.execute(tx);
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect(await pg.db.selectFrom("users").select("id").where("username", "=", "begun").execute()).toEqual([]);
    const statements = pg.statements();
    await pg.db.transaction().execute(async () => {});
    expect(pg.statements()).toBe(statements);
  });

  test("lockQueue: rows appended to one queue become visible in the order of their ids", async () => {
    // a reader acknowledging "every id below N" (getUpdates' offset) must never see a higher id
    // while a lower one is still uncommitted: it would later delete that row unread
    await sql`CREATE TABLE queue_probe (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text)`.execute(pg.db);
    const advisory = async (granted: boolean) =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted = ${granted}`.execute(pg.db)
      ).rows[0]!.n;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const append = (label: string, key: number, hold?: Promise<void>) =>
      pg.transaction(async (db) => {
        await pg.lockQueue(db, "bot_updates", key);
        await sql`INSERT INTO queue_probe (label) VALUES (${label})`.execute(db);
        await hold;
      });
    const first = append("first", 7, held);
    await waitFor(async () => (await advisory(true)) === 1, 10_000, "the first append to hold the queue");
    const second = append("second", 7);
    await waitFor(async () => (await advisory(false)) === 1, 10_000, "the second append to wait for it");
    // another queue is not held up by this one
    await append("other queue", 8);
    const visible = async () =>
      (await sql<{ label: string }>`SELECT label FROM queue_probe ORDER BY id`.execute(pg.db)).rows.map((r) => r.label);
    expect(await visible()).toEqual(["other queue"]);
    release();
    await Promise.all([first, second]);
    expect(await visible()).toEqual(["first", "other queue", "second"]);
    await sql`DROP TABLE queue_probe`.execute(pg.db);
  });

  test("statements share a session where they must: a transaction's, and a db.connection() block's from a session lock on", async () => {
    const backend = async (db: typeof pg.db) =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
    // a compiled statement goes straight to the pool only from the storage's own Kysely, never from these
    const compiledBackend = precompiled((db, _: object) => db.selectNoFrom(sql<number>`pg_backend_pid()`.as("pid")));
    await pg.db.connection().execute(async (c) => {
      await sql`select pg_advisory_lock(4242)`.execute(c);
      const locked = await backend(c);
      expect((await compiledBackend(c, {}))[0]!.pid).toBe(locked);
      await c.transaction().execute(async (tx) => expect(await backend(tx)).toBe(locked));
      // the lock's session is kept after the transaction, so the unlock finds the lock
      expect(await backend(c)).toBe(locked);
      const { rows } = await sql<{ unlocked: boolean }>`select pg_advisory_unlock(4242) as unlocked`.execute(c);
      expect(rows[0]!.unlocked).toBe(true);
    });
    await pg.db.transaction().execute(async (tx) => {
      const first = await backend(tx);
      await sql`select 1`.execute(tx);
      expect(await backend(tx)).toBe(first);
      expect((await compiledBackend(tx, {}))[0]!.pid).toBe(first);
    });
    // and the pool has every session back: as many transactions at once as it holds sessions
    await Promise.all(
      Array.from({ length: 10 }, () => pg.db.transaction().execute(async (tx) => void (await backend(tx)))),
    );
  });

  test("a pool opens at most poolSize sessions, and work beyond them waits its turn", async () => {
    const small = openPostgresStorage(await freshPostgresDatabase({ empty: true }), { poolSize: 2 });
    try {
      const backends = await Promise.all(
        Array.from({ length: 8 }, () =>
          small.db.transaction().execute(async (tx) => {
            await sql`select pg_sleep(0.05)`.execute(tx);
            return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!.pid;
          }),
        ),
      );
      expect(backends).toHaveLength(8);
      expect(new Set(backends).size).toBeLessThanOrEqual(2);
    } finally {
      await small.close();
    }
  });

  test("ping, describe, changes", async () => {
    await pg.ping();
    expect(await pg.describe()).toMatch(/^PostgreSQL \d+/);
    const before = pg.changes();
    await sql`UPDATE users SET bio = 'x' WHERE username = 'kept'`.execute(pg.db);
    expect(pg.changes()).toBeGreaterThan(before);
  });
});
