import { expect, test } from "bun:test";
import { Database as SqliteDatabase } from "bun:sqlite";
import { statSync } from "node:fs";
import { sql } from "kysely";
import { createLogger } from "../lib/log";
import { startCheckpointer } from "../ops/checkpointer";
import { tempStorages } from "../testing/temp-storage";
import { waitFor } from "../testing/wait";
import type { Storage } from "./index";

const openStorage = tempStorages("write-lock");

/** A storage with a table of rows and, for the WAL to hold, ROWS small rows written in one commit. */
function storageWithWal(rows: number): { storage: Storage; path: string; walSize: () => number } {
  const { storage, path } = openStorage();
  const sqlite = storage.sqlite!;
  // as the serving process runs it: commits never checkpoint (the worker does)
  sqlite.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = -1");
  sqlite.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const insert = sqlite.prepare("INSERT INTO rows (v) VALUES (?)");
  sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run("x".repeat(1000));
  })();
  return { storage, path, walSize: () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0 };
}

/** A write as a send makes it: it reads first (the chat, the member), then inserts. */
const readThenWrite = (storage: Storage) =>
  storage.transaction(async (db) => {
    await sql`SELECT count(*) AS n FROM rows WHERE id < 0`.execute(db);
    await sql`INSERT INTO rows (v) VALUES ('y')`.execute(db);
  });

/**
 * Another connection, in a thread of its own as the checkpoint worker's is, folding the WAL
 * and then cutting it (wal_checkpoint(TRUNCATE)) over and over until told to stop: each cut
 * holds the write lock. Answers how many cuts took place.
 */
function cutterOf(path: string): { cuts: Promise<number>; stop(): void } {
  const source = `
    import { Database } from "bun:sqlite";
    let stop = false;
    self.onmessage = (e) => {
      if (e.data === "stop") { stop = true; return; }
      const db = new Database(e.data);
      db.exec("PRAGMA busy_timeout = 0");
      db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
      postMessage("folded");
      let cuts = 0;
      const cut = () => {
        for (let i = 0; i < 50; i++) if (db.query("PRAGMA wal_checkpoint(TRUNCATE)").get().busy === 0) cuts++;
        if (stop) { db.close(); postMessage(cuts); } else setTimeout(cut, 0);
      };
      cut();
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "application/javascript" })));
  const cuts = new Promise<number>((resolve, reject) => {
    worker.onmessage = (e) => {
      if (typeof e.data === "number") {
        worker.terminate();
        resolve(e.data);
      }
    };
    worker.onerror = (e) => reject(new Error((e as ErrorEvent).message));
  });
  worker.postMessage(path);
  return { cuts, stop: () => worker.postMessage("stop") };
}

test("writes that read first wait while another connection cuts a large WAL: none fails with 'database is locked'", async () => {
  const { storage, path, walSize } = storageWithWal(20_000);
  expect(walSize()).toBeGreaterThan(16 * 1024 * 1024);
  const cutter = cutterOf(path);
  let written = 0;
  const failures: string[] = [];
  // writes go on, in groups as a busy server's, until the cutter has cut the WAL at least once
  // while they ran (and the file is gone), then a little longer
  let cutSeen = false;
  for (let rounds = 0; rounds < 200 || !cutSeen; rounds++) {
    const group = Array.from({ length: 8 }, () =>
      readThenWrite(storage).then(
        () => void written++,
        (err) => void failures.push(String(err)),
      ),
    );
    await Promise.all(group);
    if (!cutSeen && walSize() < 1024 * 1024) cutSeen = true;
    if (rounds > 20_000) throw new Error("the WAL was never cut");
  }
  cutter.stop();
  expect(await cutter.cuts).toBeGreaterThan(0);
  expect(failures).toEqual([]);
  const count = storage.sqlite!.query("SELECT count(*) AS n FROM rows WHERE v = 'y'").get() as { n: number };
  expect(count.n).toBe(written);
}, 60_000);

test("while another connection holds the write lock, a write waits for it and the event loop keeps serving", async () => {
  const { storage, path } = storageWithWal(10);
  const holder = new Worker(
    URL.createObjectURL(
      new Blob(
        [
          `import { Database } from "bun:sqlite";
           self.onmessage = (e) => {
             const db = new Database(e.data);
             db.exec("BEGIN IMMEDIATE");
             postMessage("holding");
             setTimeout(() => { db.exec("COMMIT"); db.close(); postMessage("released"); }, 300);
           };`,
        ],
        { type: "application/javascript" },
      ),
    ),
  );
  const said: string[] = [];
  holder.onmessage = (e) => void said.push(e.data as string);
  holder.postMessage(path);
  await waitFor(() => said.includes("holding"), 10_000, "the other connection to take the write lock");
  let turns = 0;
  let writing = true;
  const write = readThenWrite(storage).finally(() => (writing = false));
  // the event loop turns while the write waits: the wait is not a sleep inside SQLite
  while (writing) {
    await Bun.sleep(5);
    if (!said.includes("released")) turns++;
  }
  await write;
  await waitFor(() => said.includes("released"), 10_000, "the other connection to say it let go");
  expect(turns).toBeGreaterThan(0);
  holder.terminate();
});

test("a write still waiting when the busy timeout ends fails with SQLite's error, not a hang", async () => {
  const { storage, path } = storageWithWal(1);
  const other = new SqliteDatabase(path);
  // this thread's own connection holds the lock and never lets go while the write waits
  other.exec("BEGIN IMMEDIATE");
  try {
    await expect(readThenWrite(storage)).rejects.toThrow("database is locked");
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  // the lock released, writes go through again
  await readThenWrite(storage);
}, 30_000);

test("a write load that never pauses keeps the WAL near its limit: the worker starts the log over", async () => {
  const { storage, walSize } = storageWithWal(0);
  const limit = 512 * 1024;
  const log = createLogger({ level: "warn" });
  const closers: Array<() => unknown> = [];
  const checkpointer = await startCheckpointer(
    { storage, log, onClose: (fn) => void closers.push(fn) },
    { walBytes: 64 * 1024, walLimitBytes: limit, pollMs: 10 },
  );
  expect(checkpointer).not.toBeNull();
  const big = "z".repeat(4000);
  let largest = 0;
  try {
    // the worker thread starts on first need; what is measured is the log once it runs
    storage.sqlite!.query("INSERT INTO rows (v) VALUES (?)").run(big);
    await checkpointer!.checkpoint();
    // rows well past the WAL's bound, a few at a time, one group after the other with no pause between
    for (let i = 0; i < 1_000; i++) {
      await Promise.all(
        Array.from({ length: 5 }, () =>
          storage.transaction(async (db) => {
            await sql`SELECT count(*) FROM rows WHERE id < 0`.execute(db);
            await sql`INSERT INTO rows (v) VALUES (${big})`.execute(db);
          }),
        ),
      );
      largest = Math.max(largest, walSize());
    }
  } finally {
    for (const close of closers) await close();
  }
  expect(checkpointer!.started).toBe(true);
  // a fraction of what was written: without the limit the file holds nearly all of it
  expect(largest).toBeLessThan(10 * 1024 * 1024);
  expect(storage.sqlite!.query("SELECT count(*) AS n FROM rows").get()).toEqual({ n: 5_001 });
}, 120_000);
