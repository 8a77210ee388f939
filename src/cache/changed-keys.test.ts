import { expect, test } from "bun:test";
import { Database as SqliteDatabase } from "bun:sqlite";
import type { Storage } from "../db";
import { tempStorages } from "../testing/temp-storage";
import { ChangedKeys, KeyedCache, type KeySource } from "./changed-keys";

const openStorage = tempStorages("changed");

/** Pairs name two keys of space 0; others (when logged) one of space 1. */
const PAIRS: KeySource[] = [{ table: "pairs", columns: ["a", "b"], space: 0 }];
const keys = (changes: ChangedKeys): number[] | "all" | null => {
  const taken = changes.take();
  return taken === null || taken === "all" ? taken : taken.map((c) => c.key);
};

/** A database in a file (so another connection can write to it) with a table of pairs, logged by ChangedKeys. */
function open(): { storage: Storage; sqlite: SqliteDatabase; path: string; changes: ChangedKeys } {
  const { storage, path } = openStorage();
  const sqlite = storage.sqlite!;
  sqlite.exec("CREATE TABLE pairs (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL)");
  sqlite.exec("CREATE TABLE others (id INTEGER PRIMARY KEY, a INTEGER NOT NULL)");
  const changes = new ChangedKeys(storage, "test", PAIRS);
  return { storage, sqlite, path, changes };
}

/** The next turn of the event loop (Storage.dataVersion is read once per turn). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the keys of rows inserted, updated and deleted are taken once each; other tables' writes are not logged", () => {
  const { sqlite, changes } = open();
  sqlite.run("INSERT INTO pairs (a, b) VALUES (1, 2)");
  expect(keys(changes)).toEqual([1, 2]);
  expect(keys(changes)).toEqual([]);
  // old and new values of an update
  sqlite.run("UPDATE pairs SET b = 3 WHERE a = 1");
  expect(keys(changes)).toEqual([1, 2, 1, 3]);
  sqlite.run("DELETE FROM pairs");
  sqlite.run("INSERT INTO others (a) VALUES (7)");
  expect(keys(changes)).toEqual([1, 3]);
  expect(keys(changes)).toEqual([]);
});

test("nothing is told while a transaction is open; a rolled-back write leaves nothing, a committed one its keys", () => {
  const { sqlite, changes } = open();
  sqlite.run("BEGIN");
  sqlite.run("INSERT INTO pairs (a, b) VALUES (4, 5)");
  expect(keys(changes)).toBeNull();
  sqlite.run("ROLLBACK");
  expect(keys(changes)).toEqual([]);
  sqlite.transaction(() => sqlite.run("INSERT INTO pairs (a, b) VALUES (6, 7)"))();
  expect(keys(changes)).toEqual([6, 7]);
});

test("a commit by another connection says that anything may have changed, once", async () => {
  const { path, changes } = open();
  const other = new SqliteDatabase(path);
  try {
    await nextTurn();
    expect(keys(changes)).toEqual([]);
    other.run("INSERT INTO others (a) VALUES (1)");
    await nextTurn();
    expect(keys(changes)).toBe("all");
    expect(keys(changes)).toEqual([]);
  } finally {
    other.close();
  }
});

test("the log is trimmed as it is taken, and no key is missed or repeated across the trims", () => {
  const { sqlite, changes } = open();
  const logged = () => sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM temp.${changes.table}`).get()!.n;
  const taken: number[] = [];
  for (let i = 0; i < 1_000; i++) {
    sqlite.run("INSERT INTO pairs (a, b) VALUES (?, ?)", [i, 1_000 + i]);
    if (i % 7 === 0) taken.push(...(keys(changes) as number[]));
  }
  taken.push(...(keys(changes) as number[]));
  expect(taken).toEqual(Array.from({ length: 1_000 }, (_, i) => [i, 1_000 + i]).flat());
  expect(logged()).toBeLessThan(300);
});

test("a second log over the same connection and tables keeps its own place and trims only its own entries", () => {
  const { storage, sqlite, changes } = open();
  sqlite.run("INSERT INTO pairs (a, b) VALUES (1, 2)");
  const later = new ChangedKeys(storage, "test", PAIRS);
  sqlite.run("INSERT INTO pairs (a, b) VALUES (3, 4)");
  expect(keys(later)).toEqual([3, 4]);
  for (let i = 0; i < 300; i++) sqlite.run("INSERT INTO pairs (a, b) VALUES (0, 0)");
  expect((keys(later) as number[]).length).toBe(600);
  expect((keys(changes) as number[]).slice(0, 4)).toEqual([1, 2, 3, 4]);
});

test("a NULL names nothing, and a write it is in is not refused", () => {
  const { storage, sqlite } = open();
  sqlite.exec("CREATE TABLE maybe (id INTEGER PRIMARY KEY, a INTEGER)");
  const changes = new ChangedKeys(storage, "maybe", [{ table: "maybe", columns: ["a"], space: 2 }]);
  sqlite.run("INSERT INTO maybe (a) VALUES (NULL), (9)");
  expect(changes.take()).toEqual([{ seq: 2, space: 2, key: 9 }] as never);
});

test("a source may log a constant key, some kinds of writes only, and updates of some columns only", () => {
  const { storage, sqlite } = open();
  const changes = new ChangedKeys(storage, "narrow", [
    { table: "others", columns: ["a", -1], space: 0, on: ["insert", "update"], updateOf: ["a"] },
    // a second source on the same table, its triggers apart
    { table: "others", columns: [7], space: 0, on: ["delete"] },
  ]);
  sqlite.run("INSERT INTO others (a) VALUES (5)");
  expect(keys(changes)).toEqual([5, -1]);
  sqlite.run("UPDATE others SET id = 40");
  expect(keys(changes)).toEqual([]);
  sqlite.run("UPDATE others SET a = 6");
  expect(keys(changes)).toEqual([5, -1, 6]);
  sqlite.run("DELETE FROM others");
  expect(keys(changes)).toEqual([7]);
});

test("kept answers are dropped by a write naming any row they were read from, and bounded", () => {
  const { storage, sqlite } = open();
  const sources: KeySource[] = [...PAIRS, { table: "others", columns: ["a"], space: 1 }];
  const answers = new KeyedCache<string>(storage, "answers", sources, 3);
  const account = (key: number) => ({ space: 0, key });
  const post = (key: number) => ({ space: 1, key });
  const kept = () => ["x", "y", "z", "w"].map((k) => answers.get(k) ?? null);
  expect(answers.current()).toBe(true);
  answers.keep("x", [account(1), post(1)], "X");
  answers.keep("y", [account(1)], "Y");
  answers.keep("z", [post(2)], "Z");
  expect(kept()).toEqual(["X", "Y", "Z", null]);
  // post 1 (space 1): only the answers read from it; then account 1 (space 0)
  sqlite.run("INSERT INTO others (a) VALUES (1)");
  expect(answers.current()).toBe(true);
  expect(kept()).toEqual([null, "Y", "Z", null]);
  sqlite.run("INSERT INTO pairs (a, b) VALUES (5, 1)");
  expect(answers.current()).toBe(true);
  expect(kept()).toEqual([null, null, "Z", null]);
  // full: the oldest goes first; kept again under its key, an answer depends on its new rows only
  answers.keep("x", [account(7)], "X2");
  answers.keep("y", [account(8)], "Y2");
  answers.keep("w", [post(2)], "W");
  expect(answers.size).toBe(3);
  expect(kept()).toEqual(["X2", "Y2", null, "W"]);
  answers.keep("x", [account(9)], "X3");
  sqlite.run("INSERT INTO pairs (a, b) VALUES (7, 8)");
  expect(answers.current()).toBe(true);
  expect(kept()).toEqual(["X3", null, null, "W"]);
  // inside a transaction nothing may be used or kept; after it, what it did not name is still kept
  sqlite.run("BEGIN");
  expect(answers.current()).toBe(false);
  sqlite.run("COMMIT");
  expect(answers.current()).toBe(true);
  expect(kept()).toEqual(["X3", null, null, "W"]);
});
