import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from "kysely";
import type { Database } from "./schema";
import { SEARCH_BUDGET_ERROR } from "./search-budget";
import { BUSY_TIMEOUT_MS, toSqliteValue } from "./sqlite-dialect";

/**
 * Long reads (searches, an account's export, the admin area's lists) run on a connection of
 * their own in a worker thread, so while one runs the serving thread keeps answering
 * everything else: bun:sqlite is synchronous, and a statement on the serving connection
 * holds the event loop (health checks, feeds, sends) until it ends. The worker's connection is
 * read-only and sees what is committed, as another process would; a write acknowledged to
 * someone was committed before the acknowledgement, so a long read after it sees it.
 *
 * The worker starts at the first long read (an idle instance pays no thread for it) and runs
 * its statements one at a time in the order they came; at most QUEUE_LIMIT wait, and the one
 * after is refused (ReadQueueFullError) rather than making everyone behind it wait longer.
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
let db = null;
const statements = new Map();
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "open") {
    db = new Database(m.path, { readonly: true });
    db.exec("PRAGMA busy_timeout = " + m.busyTimeoutMs);
    // the serving connection's search budget (src/db/search-budget.ts), on this connection
    db.function("social_search_before", (deadline, _row) => {
      if (Date.now() >= deadline) throw new Error(${JSON.stringify(SEARCH_BUDGET_ERROR)});
      return 1;
    });
    postMessage({ type: "ready" });
    return;
  }
  try {
    let stmt = statements.get(m.sql);
    if (!stmt) {
      if (statements.size >= m.statementCacheSize) {
        const oldest = statements.keys().next().value;
        statements.get(oldest).finalize();
        statements.delete(oldest);
      }
      stmt = db.prepare(m.sql);
      statements.set(m.sql, stmt);
    }
    postMessage({ type: "rows", id: m.id, rows: stmt.all(...m.parameters) });
  } catch (err) {
    postMessage({ type: "failed", id: m.id, message: String(err && err.message || err), code: err && err.code });
  }
};
`;

/** Statements the worker keeps prepared (by SQL text, the least recently prepared dropped first). */
const STATEMENT_CACHE_SIZE = 100;

/** A long read refused because QUEUE_LIMIT reads were already waiting for the read worker. */
export class ReadQueueFullError extends Error {
  constructor(limit: number) {
    super(`${limit} long reads are already waiting`);
    this.name = "ReadQueueFullError";
  }
}

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (err: Error) => void;
}

type WorkerReply =
  | { type: "ready" }
  | { type: "rows"; id: number; rows: unknown[] }
  | { type: "failed"; id: number; message: string; code?: string };

/** The worker thread and the reads waiting on it. */
class ReadWorker {
  #worker: Worker | null = null;
  #starting: Promise<Worker> | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;

  constructor(
    private readonly path: string,
    private readonly queueLimit: () => number,
  ) {}

  /** Reads waiting or running in the worker (for /metrics and tests). */
  get waiting(): number {
    return this.#pending.size;
  }

  async run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.#closed) throw new Error("the database is closed");
    const limit = this.queueLimit();
    if (this.#pending.size >= limit) throw new ReadQueueFullError(limit);
    const id = this.#nextId++;
    const rows = new Promise<unknown[]>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    try {
      const worker = await this.#start();
      worker.postMessage({
        id,
        sql,
        parameters: parameters.map(toSqliteValue),
        statementCacheSize: STATEMENT_CACHE_SIZE,
      });
    } catch (err) {
      this.#pending.delete(id);
      throw err;
    }
    return rows;
  }

  #start(): Promise<Worker> {
    return (this.#starting ??= new Promise<Worker>((resolve, reject) => {
      const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
      const w = new Worker(url);
      w.onmessage = (e: MessageEvent<WorkerReply>) => {
        const reply = e.data;
        if (reply.type === "ready") {
          URL.revokeObjectURL(url);
          // waiting reads keep the process alive by their promises, not the thread
          (w as unknown as { unref(): void }).unref();
          this.#worker = w;
          resolve(w);
          return;
        }
        const pending = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        if (!pending) return;
        if (reply.type === "rows") pending.resolve(reply.rows);
        else pending.reject(Object.assign(new Error(reply.message), { code: reply.code }));
      };
      w.onerror = (e) => {
        const why = (e as ErrorEvent).message ?? "read worker failed";
        reject(new Error(why));
        this.#failAll(why);
      };
      w.postMessage({ type: "open", path: this.path, busyTimeoutMs: BUSY_TIMEOUT_MS });
    }));
  }

  /** The worker died: every waiting read fails, and the next read starts a new worker. */
  #failAll(why: string): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#starting = null;
    for (const p of this.#pending.values()) p.reject(new Error(`read worker failed: ${why}`));
    this.#pending.clear();
  }

  close(): void {
    this.#closed = true;
    this.#failAll("the database is closed");
  }
}

class ReadWorkerConnection implements DatabaseConnection {
  constructor(private readonly worker: ReadWorker) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.worker.run(compiled.sql, compiled.parameters)) as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("long reads are not streamed");
  }
}

const noTransactions = async (): Promise<never> => {
  throw new Error("long reads run outside transactions");
};

/** Kysely's SQLite dialect over the worker: statements go to it one by one, without transactions. */
function readWorkerDialect(worker: ReadWorker): Dialect {
  const connection = new ReadWorkerConnection(worker);
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    releaseConnection: async () => {},
    destroy: async () => worker.close(),
  };
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}

/** A Kysely whose statements run on the database at PATH in a worker thread (see above), and how many wait there. */
export function openReadWorker(
  path: string,
  queueLimit: () => number,
): { db: Kysely<Database>; waiting: () => number } {
  const worker = new ReadWorker(path, queueLimit);
  return { db: new Kysely<Database>({ dialect: readWorkerDialect(worker) }), waiting: () => worker.waiting };
}
