import type { App } from "../app";

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1000 WAL pages and fsyncs there, so under disk load (a backup writing a
 * 1 GB snapshot, a big upload) one unlucky write waits hundreds of ms. The serving process
 * turns that off on its connection and checkpoints from a worker thread with its own
 * connection instead, in PASSIVE mode: it never blocks a writer, and while a backup holds an
 * old snapshot it copies what it can and tries again later.
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
let db = null;
let opts = null;
const walSize = () => { try { return statSync(opts.path + "-wal").size; } catch { return 0; } };
// PASSIVE only: it never takes the writer lock, so a checkpoint (and its fsync, slow under
// disk load) never stalls a commit. The WAL file's size is bounded by journal_size_limit,
// applied when the next commit starts the WAL over.
const checkpoint = () => db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === "start") {
    opts = msg;
    db = new Database(msg.path);
    db.exec("PRAGMA busy_timeout = 0");
    setInterval(() => {
      try {
        if (walSize() > opts.walBytes) checkpoint();
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
}

const DEFAULT_AUTOCHECKPOINT = 1000;
/** WAL size that triggers a checkpoint, and the size the WAL file is cut back to */
export const WAL_BYTES = 4 * 1024 * 1024;

/** What the checkpointer needs of the App (the benchmark passes its own). */
export type CheckpointerHost = Pick<App, "log" | "onClose"> & { storage: Pick<App["storage"], "sqlite"> };

/** Starts the checkpoint worker for the serving process; null for an in-memory database or PostgreSQL. */
export async function startCheckpointer(
  app: CheckpointerHost,
  opts: { walBytes?: number; pollMs?: number } = {},
): Promise<Checkpointer | null> {
  const sqlite = app.storage.sqlite;
  if (!sqlite) return null;
  const path = sqlite.filename;
  if (!path || path === ":memory:") return null;
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(url);
  const pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let alive = true;

  // if the worker fails, commits checkpoint by themselves again: the WAL must never grow unbounded
  const fallBack = (why: string) => {
    if (!alive) return;
    alive = false;
    for (const p of pending.values()) p.reject(new Error(`checkpoint worker failed: ${why}`));
    pending.clear();
    try {
      sqlite.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    } catch {
      // the database closed first (the worker died during shutdown): no commits left to checkpoint
      return;
    }
    app.log.error("checkpoint worker failed; automatic checkpoints are back on", { error: why });
  };

  const ready = new Promise<void>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent) => {
      const msg = e.data as {
        type: string;
        id?: number;
        result?: Omit<CheckpointResult, "walBytes">;
        walBytes?: number;
        error?: string;
      };
      if (msg.type === "ready") resolve();
      else if (msg.type === "error") app.log.warn("checkpoint failed", { error: msg.error });
      else if (msg.type === "done" && msg.id !== undefined) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error || !msg.result) p?.reject(new Error(msg.error ?? "checkpoint failed"));
        else p?.resolve({ ...msg.result, walBytes: msg.walBytes ?? 0 });
      }
    };
    worker.onerror = (e) => {
      const why = (e as ErrorEvent).message ?? "worker error";
      reject(new Error(why));
      fallBack(why);
    };
  });
  const walBytes = opts.walBytes ?? WAL_BYTES;
  worker.postMessage({ type: "start", path, walBytes, pollMs: opts.pollMs ?? 500 });
  await ready;
  URL.revokeObjectURL(url);
  sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  sqlite.exec(`PRAGMA journal_size_limit = ${walBytes}`);
  (worker as unknown as { unref(): void }).unref();

  app.onClose(() => {
    if (!alive) return;
    alive = false;
    worker.terminate();
    for (const p of pending.values()) p.reject(new Error("shutting down"));
    pending.clear();
    sqlite.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  });

  return {
    checkpoint() {
      if (!alive) return Promise.reject(new Error("checkpoint worker is not running"));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ type: "checkpoint", id });
      });
    },
  };
}
