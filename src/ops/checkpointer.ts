import { statSync } from "node:fs";
import type { App } from "../app";
import { threadExited } from "../lib/worker-requests";

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1000 WAL pages and fsyncs there, so under disk load (a backup writing a
 * large snapshot, a big upload) one unlucky write waits for that fsync. The serving process
 * turns that off on its connection and checkpoints from a worker thread with its own
 * connection instead, mostly in PASSIVE mode: it never blocks a writer, and while a backup
 * holds an old snapshot it copies what it can and tries again later.
 *
 * Two steps take the write lock for a moment, and writes wait for them (a write transaction
 * begins IMMEDIATE and retries its BEGIN while the lock is held: db/sqlite-dialect.ts), never
 * fail: starting the log over once it is longer than the limit (RESTART), and cutting the file
 * to nothing once the writes pause (TRUNCATE).
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
let db = null;
let opts = null;
let frameBytes = 0;
const walSize = () => { try { return statSync(opts.path + "-wal").size; } catch { return 0; } };
// PASSIVE: it never takes the writer lock, so a checkpoint (and its fsync, slow under disk
// load) never stalls a commit.
const checkpoint = () => db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
// RESTART and TRUNCATE hold the writer lock while they wait for it and for readers: briefly
const holdingWrites = (mode) => {
  db.exec("PRAGMA busy_timeout = " + opts.lockWaitMs);
  try { return db.query("PRAGMA wal_checkpoint(" + mode + ")").get(); }
  finally { db.exec("PRAGMA busy_timeout = 0"); }
};
// frames in the WAL at the last poll, when all of them were folded
let foldedFrames = -1;
// asked the serving thread to hold its writes, and not yet told they are held
let awaitingHold = false;
self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === "held") {
    try { holdingWrites("RESTART"); }
    catch (err) { postMessage({ type: "error", error: String(err) }); }
    finally { awaitingHold = false; postMessage({ type: "restarted" }); }
  } else if (msg.type === "start") {
    opts = msg;
    db = new Database(msg.path);
    db.exec("PRAGMA busy_timeout = 0");
    // a frame is a page and its 24-byte header
    frameBytes = db.query("PRAGMA page_size").get().page_size + 24;
    setInterval(() => {
      try {
        if (awaitingHold || walSize() <= opts.walBytes) return;
        const done = checkpoint();
        // A write load that never pauses never lets the log start over (a commit starts it
        // over only when everything was folded as it began), so it would grow without end:
        // past the limit, the serving thread holds its writes while the rest is folded and the
        // readers move on, and the next commit writes from the start of the file again. Only
        // it can hold them: its writer retries the lock on every turn and would always win.
        if (done.log * frameBytes > opts.walLimitBytes) {
          // the log starting over empties it while the writes go on: not a pause
          foldedFrames = -1;
          awaitingHold = true;
          postMessage({ type: "hold" });
          return;
        }
        const folded = done.busy === 0 && done.checkpointed === done.log;
        // all folded, and no frame written since the last poll: the writes have paused, so the
        // file is cut to nothing here. The serving connection never cuts it (no
        // journal_size_limit): a commit starting the log over would truncate the file inside
        // the commit, on the event loop.
        if (folded && done.log === foldedFrames) holdingWrites("TRUNCATE");
        foldedFrames = folded ? done.log : -1;
      } catch (err) {
        postMessage({ type: "error", error: String(err) });
      }
    }, opts.pollMs);
    postMessage({ type: "ready" });
  } else if (msg.type === "checkpoint") {
    try {
      postMessage({ type: "done", id: msg.id, result: checkpoint(), walBytes: walSize() });
    } catch (err) {
      postMessage({ type: "done", id: msg.id, error: String(err) });
    }
  }
};
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
  /** WAL file size afterwards */
  walBytes: number;
}

export interface Checkpointer {
  /** Checkpoints now (PASSIVE: as far as readers allow, never blocking writers). */
  checkpoint(): Promise<CheckpointResult>;
  /** Whether the worker thread has been started (it is, once there is a WAL to fold). */
  readonly started: boolean;
}

const DEFAULT_AUTOCHECKPOINT = 1000;
/** WAL size that triggers a checkpoint (without the worker: the size a commit cuts the file back to) */
export const WAL_BYTES = 4 * 1024 * 1024;
/** Default length of the log past which writes wait for it to start over (config database.walLimitMB). */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * How long the worker waits for the write lock, and then for readers, when it starts the log
 * over or cuts it; writes wait meanwhile. A reader holding on longer (a backup's snapshot)
 * makes it give up and try again at a later poll.
 */
const LOCK_WAIT_MS = 100;
/** The longest the serving thread holds its writes for the worker: past it they go on, started over or not. */
const HOLD_MAX_MS = 5 * LOCK_WAIT_MS;

/** What the checkpointer needs of the App (the benchmark passes its own). */
export type CheckpointerHost = Pick<App, "log" | "onClose"> & {
  storage: Pick<App["storage"], "sqlite"> & Partial<Pick<App["storage"], "holdWrites">>;
};

const NOTHING_TO_FOLD: CheckpointResult = { busy: 0, log: 0, checkpointed: 0, walBytes: 0 };

/**
 * Takes the WAL's checkpoints off the serving process's connection; null for an in-memory
 * database or PostgreSQL. The worker thread (its own JavaScript VM, a noticeable share of an idle
 * process's memory) starts on first need: when the WAL outgrows WAL_BYTES (watched from here until
 * then, one stat per poll) or when a checkpoint is asked for with a WAL to fold. A process that
 * has written little since its start never runs it.
 */
export async function startCheckpointer(
  app: CheckpointerHost,
  opts: { walBytes?: number; walLimitBytes?: number; pollMs?: number } = {},
): Promise<Checkpointer | null> {
  const sqlite = app.storage.sqlite;
  if (!sqlite) return null;
  const path = sqlite.filename;
  if (!path || path === ":memory:") return null;
  const walBytes = opts.walBytes ?? WAL_BYTES;
  const walLimitBytes = Math.max(walBytes, opts.walLimitBytes ?? WAL_LIMIT_BYTES);
  const pollMs = opts.pollMs ?? 500;
  const walSize = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let alive = true;
  /** the thread, from when it is made */
  let spawned: Worker | null = null;
  let starting: Promise<Worker> | null = null;
  let releaseHold: () => void = () => {};

  // if the worker fails, commits checkpoint by themselves again: the WAL must never grow unbounded
  const fallBack = (why: string) => {
    if (!alive) return;
    alive = false;
    clearInterval(watch);
    releaseHold();
    for (const p of pending.values()) p.reject(new Error(`checkpoint worker failed: ${why}`));
    pending.clear();
    try {
      sqlite.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      sqlite.exec(`PRAGMA journal_size_limit = ${walBytes}`);
    } catch {
      // the database closed first (the worker died during shutdown): no commits left to checkpoint
      return;
    }
    app.log.error("checkpoint worker failed; automatic checkpoints are back on", { error: why });
  };

  const startWorker = (): Promise<Worker> =>
    (starting ??= new Promise<Worker>((resolve, reject) => {
      clearInterval(watch);
      const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
      const w = new Worker(url);
      spawned = w;
      w.onmessage = (e: MessageEvent) => {
        const msg = e.data as {
          type: string;
          id?: number;
          result?: Omit<CheckpointResult, "walBytes">;
          walBytes?: number;
          error?: string;
        };
        if (msg.type === "ready") {
          URL.revokeObjectURL(url);
          (w as unknown as { unref(): void }).unref();
          resolve(w);
        } else if (msg.type === "hold") {
          const held = app.storage.holdWrites?.(HOLD_MAX_MS) ?? Promise.resolve(() => {});
          void held.then((release) => {
            releaseHold = release;
            w.postMessage({ type: "held" });
          });
        } else if (msg.type === "restarted") {
          releaseHold();
          releaseHold = () => {};
        } else if (msg.type === "error") app.log.warn("checkpoint failed", { error: msg.error });
        else if (msg.type === "done" && msg.id !== undefined) {
          const p = pending.get(msg.id);
          pending.delete(msg.id);
          if (msg.error || !msg.result) p?.reject(new Error(msg.error ?? "checkpoint failed"));
          else p?.resolve({ ...msg.result, walBytes: msg.walBytes ?? 0 });
        }
      };
      w.onerror = (e) => {
        const why = (e as ErrorEvent).message ?? "worker error";
        reject(new Error(why));
        fallBack(why);
      };
      w.postMessage({ type: "start", path, walBytes, walLimitBytes, lockWaitMs: LOCK_WAIT_MS, pollMs });
    }));

  // the serving connection never checkpoints in a commit, nor cuts the WAL file when a commit
  // starts the log over (the worker does, once the writes pause); until the worker runs, this
  // watch starts it once the WAL is over the mark (the worker checkpoints it at its first poll)
  sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  sqlite.exec("PRAGMA journal_size_limit = -1");
  const watch = setInterval(() => {
    if (walSize() > walBytes)
      startWorker().catch((err) => app.log.error("checkpoint worker did not start", { error: String(err) }));
  }, pollMs);
  watch.unref?.();

  app.onClose(async () => {
    if (!alive) return;
    alive = false;
    clearInterval(watch);
    const exited = spawned ? threadExited(spawned) : undefined;
    spawned?.terminate();
    releaseHold();
    for (const p of pending.values()) p.reject(new Error("shutting down"));
    pending.clear();
    sqlite.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    await exited;
  });

  return {
    get started() {
      return starting !== null;
    },
    async checkpoint() {
      if (!alive) throw new Error("checkpoint worker is not running");
      // an empty WAL (nothing written since the last checkpoint, or since the start) needs no worker
      if (!starting && walSize() === 0) return NOTHING_TO_FOLD;
      const w = await startWorker();
      if (!alive) throw new Error("checkpoint worker is not running");
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ type: "checkpoint", id });
      });
    },
  };
}
