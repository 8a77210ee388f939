import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../lib/log";
import { waitFor } from "../testing/wait";
import { startCheckpointer, type CheckpointerHost } from "./checkpointer";

// a small mark and a fast poll, so a few hundred rows cross it
const WAL_MARK = 64 * 1024;
const POLL_MS = 10;

const opened: Array<{ dir: string; db: Database; closers: Array<() => unknown> }> = [];

afterEach(async () => {
  for (const { dir, db, closers } of opened.splice(0)) {
    for (const close of closers) await close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function walDatabase() {
  const dir = mkdtempSync(join(tmpdir(), "socialctl-checkpointer-"));
  const db = new Database(join(dir, "t.db"));
  // as the server's connection (openStorage): a write that meets the worker's cut of the WAL waits for it
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const closers: Array<() => unknown> = [];
  opened.push({ dir, db, closers });
  const host: CheckpointerHost = {
    storage: { sqlite: db },
    log: createLogger({ level: "warn" }),
    onClose: (fn) => void closers.push(fn),
  };
  const insert = db.prepare("INSERT INTO rows (v) VALUES (?)");
  return { db, host, insert, walSize: () => statSync(join(dir, "t.db-wal")).size };
}

const pragma = (db: Database, name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as object)[0];

test("the worker is not started while the WAL is small; once it outgrows the mark the worker starts and folds it", async () => {
  const { db, host, insert, walSize } = walDatabase();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const checkpointer = (await startCheckpointer(host, { walBytes: WAL_MARK, pollMs: POLL_MS }))!;
  // commits never checkpoint themselves, from the start
  expect(pragma(db, "wal_autocheckpoint")).toBe(0);
  // nor cut the WAL file when they start the log over: that is the worker's, once writes pause
  expect(pragma(db, "journal_size_limit")).toBe(-1);
  // nothing written: a checkpoint has nothing to fold and starts nothing
  expect(await checkpointer.checkpoint()).toEqual({ busy: 0, log: 0, checkpointed: 0, walBytes: 0 });
  for (let i = 0; i < 5; i++) insert.run("small");
  expect(walSize()).toBeGreaterThan(0);
  expect(walSize()).toBeLessThan(WAL_MARK);
  await Bun.sleep(POLL_MS * 10);
  expect(checkpointer.started).toBe(false);

  for (let i = 0; i < 200; i++) insert.run("x".repeat(1000));
  expect(walSize()).toBeGreaterThan(WAL_MARK);
  await waitFor(() => checkpointer.started, 10_000, "the watch to start the worker");
  // folded by the worker and, once no frame has come for a poll, cut to nothing by it
  await waitFor(() => walSize() === 0, 10_000, "the WAL to be cut");
  // a commit after the cut writes a new log, and the rows are all there
  insert.run("after");
  expect(walSize()).toBeGreaterThan(0);
  expect(db.query("SELECT count(*) AS n FROM rows").get()).toEqual({ n: 206 });
}, 30_000);

test("writes that go on while the worker folds and cuts the WAL all land; once they pause the file is cut", async () => {
  const { db, host, insert, walSize } = walDatabase();
  const checkpointer = (await startCheckpointer(host, { walBytes: WAL_MARK, pollMs: POLL_MS }))!;
  for (let i = 0; i < 200; i++) insert.run("x".repeat(1000));
  await waitFor(() => checkpointer.started, 10_000, "the watch to start the worker");
  let written = 200;
  for (const until = Date.now() + POLL_MS * 30; Date.now() < until; written++) {
    insert.run("y".repeat(1000));
    await Bun.sleep(1);
  }
  // a gap between those writes longer than a poll was a pause: the worker may have cut the file
  // then, and a WAL below the mark is left alone; a last burst ends the load over the mark
  for (let i = 0; i < 100; i++, written++) insert.run("z".repeat(1000));
  expect(walSize()).toBeGreaterThan(WAL_MARK);
  await waitFor(() => walSize() === 0, 10_000, "the WAL to be cut once the writes pause");
  expect(db.query("SELECT count(*) AS n FROM rows").get()).toEqual({ n: written });
}, 30_000);

test("a checkpoint asked for with a WAL to fold starts the worker, which folds it", async () => {
  const { host, insert } = walDatabase();
  const checkpointer = (await startCheckpointer(host, { walBytes: WAL_MARK, pollMs: POLL_MS }))!;
  for (let i = 0; i < 20; i++) insert.run("y".repeat(100));
  expect(checkpointer.started).toBe(false);
  const result = await checkpointer.checkpoint();
  expect(checkpointer.started).toBe(true);
  expect(result.checkpointed).toBeGreaterThan(0);
  expect(result.checkpointed).toBe(result.log);
});

test("an in-memory database has no checkpointer", async () => {
  const db = new Database(":memory:");
  const host: CheckpointerHost = { storage: { sqlite: db }, log: createLogger({ level: "warn" }), onClose: () => {} };
  expect(await startCheckpointer(host)).toBeNull();
  db.close();
});

test("closing waits for the worker's thread to exit, so the database's files are let go of when the close ends", async () => {
  const { db, host, insert } = walDatabase();
  const { dir, closers } = opened.at(-1)!;
  const checkpointer = (await startCheckpointer(host, { walBytes: WAL_MARK, pollMs: POLL_MS }))!;
  for (let i = 0; i < 20; i++) insert.run("y".repeat(100));
  await checkpointer.checkpoint();
  for (const close of closers.splice(0)) await close();
  // the last connection to close deletes the -wal and -shm files: the serving one is last only
  // when the worker's is already closed
  insert.finalize();
  db.close();
  expect(readdirSync(dir)).toEqual(["t.db"]);
});
