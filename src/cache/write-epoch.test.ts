import { expect, test } from "bun:test";
import { Database as SqliteDatabase } from "bun:sqlite";
import { sql } from "kysely";
import type { Storage } from "../db";
import { tempStorages } from "../testing/temp-storage";
import { inTransaction, type Scope } from "../db/transaction";
import { WriteEpoch } from "./write-epoch";
import { writtenTable } from "../db/sqlite-dialect";
import { precompiled } from "../db/compiled";

const openStorage = tempStorages("epoch");

/** A database in a file (so another connection can write to it) with a table of pairs; its write epoch. */
function open(): { storage: Storage; sqlite: SqliteDatabase; path: string; epoch: WriteEpoch } {
  const { storage, path } = openStorage();
  const sqlite = storage.sqlite!;
  sqlite.exec("CREATE TABLE pairs (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL)");
  return { storage, sqlite, path, epoch: storage.writeEpoch! };
}

/** The next turn of the event loop (Storage.dataVersion is read once per turn). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const insertPair = (scope: Scope, a: number) => sql`INSERT INTO pairs (a, b) VALUES (${a}, ${a})`.execute(scope.db);

/** The epochs of READERS now. */
const epochsOf = (epoch: WriteEpoch, readers: readonly number[]) => readers.map((r) => epoch.now(r));

/** Which of READERS' epochs differ between two looks. */
const movedBetween = (readers: readonly number[], before: (number | null)[], after: (number | null)[]) =>
  readers.filter((_, i) => before[i] !== after[i]);

test("the epoch stays while nothing is written and moves on every insert, update and deletion, however small", () => {
  const { sqlite, epoch } = open();
  const start = epoch.now(1)!;
  expect(epoch.now(1)).toBe(start);
  // reads, and writes that change no row
  sqlite.query("SELECT * FROM pairs").all();
  sqlite.run("UPDATE pairs SET a = 1 WHERE id = 42");
  sqlite.run("DELETE FROM pairs WHERE id = 42");
  expect(epoch.now(1)).toBe(start);
  const moved: number[] = [];
  for (const statement of [
    "INSERT INTO pairs (id, a, b) VALUES (1, 1, 1)",
    // the same value again is a write all the same
    "UPDATE pairs SET a = 1 WHERE id = 1",
    "INSERT OR REPLACE INTO pairs (id, a, b) VALUES (1, 2, 2)",
    "DELETE FROM pairs",
  ]) {
    sqlite.run(statement);
    const now = epoch.now(1)!;
    moved.push(now);
    expect(epoch.now(1)).toBe(now);
    // a write nobody told of moves every reader's
    expect(epoch.now(2)).toBe(now);
  }
  expect(new Set([start, ...moved]).size).toBe(5);
});

test("a write in a TEMP table moves it; none while a transaction is open, and a rolled-back write moves it too", () => {
  const { sqlite, epoch } = open();
  sqlite.run("INSERT INTO pairs (id, a, b) VALUES (1, 1, 1)");
  let last = epoch.now(1)!;
  const moves = () => {
    const now = epoch.now(1)!;
    expect(now).not.toBe(last);
    last = now;
  };
  sqlite.run("UPDATE pairs SET a = 2");
  moves();
  sqlite.exec("CREATE TEMP TABLE scratch (n INTEGER)");
  sqlite.run("INSERT INTO temp.scratch (n) VALUES (1)");
  moves();
  sqlite.run("BEGIN");
  expect(epoch.now(1)).toBeNull();
  sqlite.run("UPDATE pairs SET a = 3");
  expect(epoch.now(1)).toBeNull();
  sqlite.run("ROLLBACK");
  // what was read inside may have shown the write taken back: it is not the epoch before
  moves();
  sqlite.run("BEGIN");
  sqlite.run("COMMIT");
  expect(epoch.now(1)).toBe(last);
});

test("a commit by another connection moves everyone's (from the next turn of the event loop)", async () => {
  const { path, epoch } = open();
  const start = epochsOf(epoch, [1, 2]);
  const other = new SqliteDatabase(path);
  try {
    other.run("INSERT INTO pairs (id, a, b) VALUES (7, 7, 7)");
    await nextTurn();
    const now = epochsOf(epoch, [1, 2]);
    expect(movedBetween([1, 2], start, now)).toEqual([1, 2]);
    await nextTurn();
    expect(epochsOf(epoch, [1, 2])).toEqual(now);
  } finally {
    other.close();
  }
});

test("a transaction that tells whom its writes concern moves only their epochs, nobody's when it names none", async () => {
  const { storage, epoch } = open();
  const readers = [1, 2, 3, 4];
  let before = epochsOf(epoch, readers);
  await inTransaction(storage, async (scope) => {
    await insertPair(scope, 1);
    await insertPair(scope, 2);
    scope.writesConcernOnly([1]);
    scope.writesConcernOnly([2]);
  });
  let after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual([1, 2]);
  // what was kept for 3 and 4 stays kept through any number of such writes
  before = after;
  for (let i = 0; i < 3; i++)
    await inTransaction(storage, async (scope) => {
      await insertPair(scope, 9);
      scope.writesConcernOnly([]);
    });
  after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual([]);
  // the same transaction without a word moves everyone's
  await inTransaction(storage, (scope) => insertPair(scope, 9));
  expect(movedBetween(readers, after, epochsOf(epoch, readers))).toEqual(readers);
});

test("in one commit, told transactions move their readers only; one that tells nothing moves everyone's", async () => {
  const { storage, epoch } = open();
  const groups: number[] = [];
  storage.onWriteGroup((size) => groups.push(size));
  const readers = [1, 2, 3, 4, 5];
  const told = (reader: number) =>
    inTransaction(storage, async (scope) => {
      await insertPair(scope, reader);
      scope.writesConcernOnly([reader]);
    });
  let before = epochsOf(epoch, readers);
  await Promise.all([told(1), told(2), told(3)]);
  expect(groups).toEqual([3]);
  let after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual([1, 2, 3]);
  before = after;
  await Promise.all([told(1), inTransaction(storage, (scope) => insertPair(scope, 7)), told(2)]);
  expect(groups).toEqual([3, 3]);
  after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual(readers);
});

test("a told transaction that fails moves its readers' epochs, and no one else's; its neighbours commit", async () => {
  const { storage, epoch } = open();
  const readers = [1, 2, 3];
  const before = epochsOf(epoch, readers);
  const results = await Promise.allSettled([
    inTransaction(storage, async (scope) => {
      await insertPair(scope, 1);
      scope.writesConcernOnly([1]);
      throw new Error("refused after writing");
    }),
    inTransaction(storage, async (scope) => {
      await insertPair(scope, 2);
      scope.writesConcernOnly([2]);
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled"]);
  expect(movedBetween(readers, before, epochsOf(epoch, readers))).toEqual([1, 2]);
  expect(storage.sqlite!.query("SELECT a FROM pairs").all()).toEqual([{ a: 2 }]);
});

test("readers sharing a slot move together; a transaction naming very many moves everyone's", async () => {
  const { storage, epoch } = open();
  const readers = [1, 4097, 2];
  let before = epochsOf(epoch, readers);
  await inTransaction(storage, async (scope) => {
    await insertPair(scope, 1);
    scope.writesConcernOnly([1]);
  });
  let after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual([1, 4097]);
  before = after;
  await inTransaction(storage, async (scope) => {
    await insertPair(scope, 1);
    scope.writesConcernOnly(Array.from({ length: 2_000 }, (_, i) => 10_000 + i));
  });
  after = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, after)).toEqual(readers);
});

test("is made only over SQLite", () => {
  expect(() => new WriteEpoch({ sqlite: null, changes: () => 0, dataVersion: () => 0 })).toThrow(/SQLite/);
});

test("writtenTable names the table an INSERT, UPDATE, DELETE or REPLACE writes, and nothing for any other statement", () => {
  expect(
    [
      'insert into "sessions" ("a") values (?)',
      "INSERT OR IGNORE INTO post_likes (a) VALUES (1)",
      'update "users" set "a" = ?',
      "UPDATE OR REPLACE pairs SET a = 1",
      'delete from "message_reactions" where "id" = ?',
      "  REPLACE INTO others (a) VALUES (1)",
      'select * from "users"',
      'with "x" as (select 1) insert into "others" select * from "x"',
      'insert into "temp"."changed_1" (a) values (1)',
      "insert into main.pairs (a) values (1)",
      "CREATE TABLE t (a)",
    ].map(writtenTable),
  ).toEqual(["sessions", "post_likes", "users", "pairs", "message_reactions", "others", null, null, null, null, null]);
});

test("watching some tables: a statement writing any other keeps everyone's epoch, through Kysely and compiled-once alike", async () => {
  const { storage, sqlite, epoch } = open();
  sqlite.exec("CREATE TABLE others (id INTEGER PRIMARY KEY, a INTEGER NOT NULL)");
  sqlite.exec("CREATE VIRTUAL TABLE notes USING fts5(body)");
  epoch.watch(["pairs"]);
  const readers = [1, 2, 3];
  const db = storage.db;
  let before = epochsOf(epoch, readers);
  const stays = (what: string) => {
    const now = epochsOf(epoch, readers);
    expect([what, movedBetween(readers, before, now)]).toEqual([what, []]);
    before = now;
  };
  const movesEveryone = (what: string) => {
    const now = epochsOf(epoch, readers);
    expect([what, movedBetween(readers, before, now)]).toEqual([what, readers]);
    before = now;
  };
  await db
    .insertInto("others" as never)
    .values({ a: 1 } as never)
    .execute();
  await sql`UPDATE others SET a = 2`.execute(db);
  await sql`DELETE FROM others WHERE a = 5`.execute(db);
  stays("autocommit writes of another table");
  const insertOther = precompiled((d, p: { a: number }) => d.insertInto("others" as never).values({ a: p.a } as never));
  await inTransaction(storage, async (scope) => {
    await insertOther(scope.db, { a: 3 });
    // a full-text table writes its terms at the commit (rows of its shadow tables)
    await sql`INSERT INTO notes (body) VALUES ('many words to index here')`.execute(scope.db);
  });
  stays("a transaction writing only other tables, compiled-once and full-text ones among them");
  await sql`INSERT INTO pairs (a, b) VALUES (1, 1)`.execute(db);
  movesEveryone("a write of a watched table that told nothing");
  await sql`WITH x AS (SELECT 5 AS a) INSERT INTO others (a) SELECT a FROM x`.execute(db);
  movesEveryone("a statement the connection cannot name the table of");
  sqlite.run("INSERT INTO others (a) VALUES (9)");
  movesEveryone("a write on the raw connection");
  await inTransaction(storage, async (scope) => {
    await insertOther(scope.db, { a: 4 });
    await insertPair(scope, 2);
    await insertOther(scope.db, { a: 5 });
    scope.writesConcernOnly([2]);
  });
  const now = epochsOf(epoch, readers);
  expect(movedBetween(readers, before, now)).toEqual([2]);
});
