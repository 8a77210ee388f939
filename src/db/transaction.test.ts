import { expect, test } from "bun:test";
import { Database as SqliteDatabase } from "bun:sqlite";
import { sql } from "kysely";
import { migrateToLatest, type Db, type Storage } from "./index";
import { tempStorages } from "../testing/temp-storage";
import { MAX_GROUP } from "./group-commit";
import { inTransaction } from "./transaction";
import { precompiled } from "./compiled";

const openStorage = tempStorages("tx");

/** A migrated database in a file, so a second connection can look at what has committed. */
async function open(): Promise<{ storage: Storage; path: string; groups: number[] }> {
  const { storage, path } = openStorage();
  await migrateToLatest(storage.db, { snapshot: false });
  const groups: number[] = [];
  storage.onWriteGroup((size) => groups.push(size));
  return { storage, path, groups };
}

const ban = async (db: Db, deviceId: string): Promise<void> => {
  await db.insertInto("banned_devices").values({ device_id: deviceId, user_id: null, created_at: 0 }).execute();
};
// compiled once: on SQLite these run straight on bun:sqlite (sqlite-dialect.ts DirectRunner), not through Kysely's executor
const banQuery = precompiled((db, p: { deviceId: string }) =>
  db.insertInto("banned_devices").values({ device_id: p.deviceId, user_id: null, created_at: 0 }),
);
const banDirect = async (db: Db, deviceId: string): Promise<void> => void (await banQuery(db, { deviceId }));
const banned = async (db: Db) =>
  (await db.selectFrom("banned_devices").select("device_id").orderBy("device_id").execute()).map((r) => r.device_id);

test("actions composed in one scope commit together; after-commit effects run once it has committed, in order", async () => {
  const { storage } = await open();
  const seen: string[] = [];
  await inTransaction(storage, async (scope) => {
    await ban(scope.db, "a");
    scope.afterCommit(() => seen.push(`first, ${seen.length}`));
    await ban(scope.db, "b");
    scope.afterCommit(() => seen.push(`second, ${seen.length}`));
    expect(seen).toEqual([]);
  });
  expect(await banned(storage.db)).toEqual(["a", "b"]);
  expect(seen).toEqual(["first, 0", "second, 1"]);
});

test("a failure anywhere rolls every composed action back, and no after-commit effect runs", async () => {
  const { storage } = await open();
  const seen: string[] = [];
  const failed = await inTransaction(storage, async (scope) => {
    await ban(scope.db, "c");
    scope.afterCommit(() => seen.push("published"));
    throw new Error("the second action failed");
  }).catch((e: Error) => e.message);
  expect(failed).toBe("the second action failed");
  expect(await banned(storage.db)).toEqual([]);
  expect(seen).toEqual([]);
});

test("concurrent transactions share one commit; a failing one undoes only its own writes, its neighbours commit", async () => {
  const { storage, groups } = await open();
  const effects: string[] = [];
  const job = (name: string, body: (db: Db) => Promise<void>) =>
    inTransaction(storage, async (scope) => {
      await body(scope.db);
      scope.afterCommit(() => effects.push(name));
      return name;
    }).catch((e: Error) => `failed: ${e.message}`);
  const outcomes = await Promise.all([
    job("plain", (db) => ban(db, "d0")),
    job("throws", async (db) => {
      await ban(db, "d1");
      throw new Error("refused after writing");
    }),
    // a unique-index error caught inside the transaction (a retry path): the job goes on and commits
    job("catches", async (db) => {
      await ban(db, "d2");
      await ban(db, "d0").catch(() => ban(db, "d2-instead"));
    }),
    // the same error let through: the job's earlier write goes with it
    job("unique", async (db) => {
      await ban(db, "d3");
      await ban(db, "d2");
    }),
    job("last", (db) => ban(db, "d4")),
  ]);
  expect(groups).toEqual([5]);
  expect(outcomes[0]).toBe("plain");
  expect(outcomes[1]).toBe("failed: refused after writing");
  expect(outcomes[2]).toBe("catches");
  expect(outcomes[3]).toContain("UNIQUE");
  expect(outcomes[4]).toBe("last");
  expect(await banned(storage.db)).toEqual(["d0", "d2", "d2-instead", "d4"]);
  expect(effects).toEqual(["plain", "catches", "last"]);
});

test("no transaction is answered, and no after-commit effect runs, before its group has committed", async () => {
  const { storage, path, groups } = await open();
  // another connection sees only what has committed
  const other = new SqliteDatabase(path, { readonly: true });
  const committed = (deviceId: string) =>
    other.query("SELECT 1 FROM banned_devices WHERE device_id = ?").get(deviceId) !== null;
  try {
    const checks: string[] = [];
    await Promise.all(
      ["e0", "e1", "e2"].map((deviceId) =>
        inTransaction(storage, async (scope) => {
          await ban(scope.db, deviceId);
          // inside, the job reads its own write, which nobody else sees yet
          const own = await scope.db
            .selectFrom("banned_devices")
            .select("device_id")
            .where("device_id", "=", deviceId)
            .executeTakeFirst();
          checks.push(`${deviceId} inside: own ${own?.device_id === deviceId}, committed ${committed(deviceId)}`);
          scope.afterCommit(() => checks.push(`${deviceId} effect: committed ${committed(deviceId)}`));
        }).then(() => checks.push(`${deviceId} answered: committed ${committed(deviceId)}`)),
      ),
    );
    expect(groups).toEqual([3]);
    expect(checks.filter((c) => c.includes("inside"))).toEqual([
      "e0 inside: own true, committed false",
      "e1 inside: own true, committed false",
      "e2 inside: own true, committed false",
    ]);
    expect(checks.filter((c) => !c.includes("inside")).sort()).toEqual([
      "e0 answered: committed true",
      "e0 effect: committed true",
      "e1 answered: committed true",
      "e1 effect: committed true",
      "e2 answered: committed true",
      "e2 effect: committed true",
    ]);
  } finally {
    other.close();
  }
});

test("a group carries at most MAX_GROUP transactions; the rest commit in the next group", async () => {
  const { storage, groups } = await open();
  const n = MAX_GROUP + 6;
  await Promise.all(Array.from({ length: n }, (_, i) => inTransaction(storage, (scope) => ban(scope.db, `f${i}`))));
  expect(groups).toEqual([MAX_GROUP, 6]);
  expect((await banned(storage.db)).length).toBe(n);
});

test("when SQLite rolls the whole transaction back, the group fails as one: nobody is answered as if committed", async () => {
  const { storage, groups } = await open();
  await sql`CREATE TRIGGER roll_all BEFORE INSERT ON banned_devices WHEN NEW.device_id = 'bad' BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END`.execute(
    storage.db,
  );
  const outcomes = await Promise.all(
    ["g0", "bad", "g2"].map((deviceId) =>
      inTransaction(storage, (scope) => ban(scope.db, deviceId)).then(
        () => "ok",
        (e: Error) => e.message,
      ),
    ),
  );
  expect(groups).toEqual([3]);
  expect(outcomes).toEqual(["rolled back", "rolled back", "rolled back"]);
  expect(await banned(storage.db)).toEqual([]);
  // the writer goes on with the next group
  await inTransaction(storage, (scope) => ban(scope.db, "g3"));
  expect(await banned(storage.db)).toEqual(["g3"]);
});

test("close waits for the queued transactions and then refuses new ones", async () => {
  const { storage } = await open();
  const queued = inTransaction(storage, (scope) => ban(scope.db, "h0"));
  const closing = storage.close();
  await queued;
  await closing;
  await expect(inTransaction(storage, (scope) => ban(scope.db, "h1"))).rejects.toThrow("closed");
});

test("compiled-once writes run straight on SQLite keep the savepoints: a failing job undoes only its own", async () => {
  const { storage, groups } = await open();
  const outcomes = await Promise.all(
    [["i0"], ["i1", "i0"], ["i2"]].map((ids) =>
      inTransaction(storage, async (scope) => {
        for (const id of ids) await banDirect(scope.db, id);
      }).then(
        () => "ok",
        (e: Error) => e.message,
      ),
    ),
  );
  expect(groups).toEqual([3]);
  expect(outcomes[0]).toBe("ok");
  expect(outcomes[1]).toContain("UNIQUE");
  expect(outcomes[2]).toBe("ok");
  expect(await banned(storage.db)).toEqual(["i0", "i2"]);
});

test("a compiled-once write outside the transaction holding the connection waits for it, not inside it", async () => {
  const { storage } = await open();
  let outside: Promise<void> | undefined;
  const failed = inTransaction(storage, async (scope) => {
    await banDirect(scope.db, "j0");
    // while this transaction holds the connection (a real wait, the event loop turns), another
    // request writes through the database itself: run inside, it would roll back with this job
    outside = banDirect(storage.db, "j1");
    await Bun.sleep(20);
    throw new Error("refused");
  }).catch((e: Error) => e.message);
  expect(await failed).toBe("refused");
  await outside;
  expect(await banned(storage.db)).toEqual(["j1"]);
});

test("after SQLite rolled the whole transaction back, a compiled-once write of the job fails instead of autocommitting", async () => {
  const { storage } = await open();
  await sql`CREATE TRIGGER roll_all BEFORE INSERT ON banned_devices WHEN NEW.device_id = 'bad' BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END`.execute(
    storage.db,
  );
  const outcome = await inTransaction(storage, async (scope) => {
    await banDirect(scope.db, "k0");
    await banDirect(scope.db, "bad").catch(() => {});
    await banDirect(scope.db, "k1");
  }).then(
    () => "ok",
    (e: Error) => e.message,
  );
  expect(outcome).toBe("the transaction was rolled back");
  expect(await banned(storage.db)).toEqual([]);
});

test("held writes: the running group commits, the next waits until released (or the hold runs out), and nothing is lost", async () => {
  const { storage, path } = await open();
  const other = new SqliteDatabase(path);
  try {
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const first = storage.transaction(async (db) => {
      await ban(db, "before");
      await finishing;
    });
    await Bun.sleep(10);
    let held = false;
    const holding = storage.holdWrites!(10_000).then((release) => ((held = true), release));
    await Bun.sleep(10);
    expect(held).toBe(false);
    finish();
    await first;
    const release = await holding;
    const later = storage.transaction((db) => ban(db, "while held"));
    await Bun.sleep(50);
    // the other connection has the write lock to itself
    other.exec("BEGIN IMMEDIATE");
    other.exec("ROLLBACK");
    expect(await banned(storage.db)).toEqual(["before"]);
    release();
    await later;
    expect(await banned(storage.db)).toEqual(["before", "while held"]);

    await storage.holdWrites!(30);
    await storage.transaction((db) => ban(db, "after the hold ran out"));
    expect(await banned(storage.db)).toHaveLength(3);
  } finally {
    other.close();
  }
});
