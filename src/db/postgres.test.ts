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
import { freshPostgresDatabase } from "../testing/postgres";

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
    const liteTables = (await lite.db.introspection.getTables()).filter((t) => !/_fts($|_)/.test(t.name));
    const pgTables = (await pg.db.introspection.getTables()).filter((t) => !/_fts$/.test(t.name));
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

  test("ping, describe, changes", async () => {
    await pg.ping();
    expect(await pg.describe()).toMatch(/^PostgreSQL \d+/);
    const before = pg.changes();
    await sql`UPDATE users SET bio = 'x' WHERE username = 'kept'`.execute(pg.db);
    expect(pg.changes()).toBeGreaterThan(before);
  });
});
