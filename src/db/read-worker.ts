import { AsyncLocalStorage } from "node:async_hooks";
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
import { WorkerRequests } from "../lib/worker-requests";

/**
 * Long reads (searches, an account's export, the admin area's lists) run on a connection of
 * their own in a worker thread, so while one runs the serving thread keeps answering
 * everything else: bun:sqlite is synchronous, and a statement on the serving connection
 * holds the event loop (health checks, feeds, sends) until it ends. The worker's connection is
 * read-only and sees what is committed, as another process would; a write acknowledged to
 * someone was committed before the acknowledgement, so a long read after it sees it.
 *
 * The worker starts at the first long read (an idle instance pays no thread for it) and runs
 * its statements one at a time in the order they came; at most QUEUE_LIMIT long reads wait, and
 * the one after is refused (ReadQueueFullError) rather than making everyone behind it wait
 * longer. A long read is a statement, or all the statements of one request asked for in
 * oneLongRead (a search of every list is several).
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
let db = null;
const statements = new Map();
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "open") {
    try {
      db = new Database(m.path, { readonly: true });
      db.exec("PRAGMA busy_timeout = " + m.busyTimeoutMs);
      // other databases the reads name by schema (read-only, as this connection is)
      for (const [name, path] of Object.entries(m.attach)) db.prepare("ATTACH DATABASE ? AS " + name).run(path);
      // the serving connection's search budget (src/db/search-budget.ts), on this connection
      db.function("social_search_before", (deadline, _row) => {
        if (Date.now() >= deadline) throw new Error(${JSON.stringify(SEARCH_BUDGET_ERROR)});
        return 1;
      });
      postMessage({ type: "ready" });
    } catch (err) {
      postMessage({ type: "openFailed", message: String(err && err.message || err) });
    }
    return;
  }
  if (m.type === "close") {
    db?.close();
    postMessage({ type: "done", id: m.id });
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
    postMessage({ type: "done", id: m.id, result: stmt.all(...m.parameters) });
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

/** The worker thread and the reads waiting on it. */
class ReadWorker {
  readonly #thread: WorkerRequests;
  /** set while the statements of one long read run (oneLongRead): they count once, together */
  readonly #within = new AsyncLocalStorage<true>();
  /** long reads admitted and not yet ended */
  #reads = 0;

  constructor(
    path: string,
    private readonly queueLimit: () => number,
    attach: Readonly<Record<string, string>>,
  ) {
    this.#thread = new WorkerRequests("read worker", WORKER_SOURCE, () => ({
      path,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      attach,
    }));
  }

  /** Reads waiting or running in the worker (for /metrics and tests). */
  get waiting(): number {
    return this.#thread.waiting;
  }

  /** Runs RUN as one long read: refused at once when the queue is full, else its statements count once. */
  async oneLongRead<T>(run: () => Promise<T>): Promise<T> {
    if (this.#within.getStore()) return run();
    const limit = this.queueLimit();
    if (this.#reads >= limit) throw new ReadQueueFullError(limit);
    this.#reads++;
    try {
      return await this.#within.run(true, run);
    } finally {
      this.#reads--;
    }
  }

  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return this.oneLongRead(() => this.#ask(sql, parameters));
  }

  async #ask(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return (await this.#thread.ask({
      sql,
      parameters: parameters.map(toSqliteValue),
      statementCacheSize: STATEMENT_CACHE_SIZE,
    })) as unknown[];
  }

  close(): Promise<void> {
    return this.#thread.close();
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

/**
 * A Kysely whose statements run on the database at PATH in a worker thread (see above), and how
 * many wait there. ATTACH: the other database files its statements see, by schema name (their
 * files must exist).
 */
export function openReadWorker(
  path: string,
  queueLimit: () => number,
  attach: Readonly<Record<string, string>> = {},
): {
  db: Kysely<Database>;
  waiting: () => number;
  oneLongRead: <T>(run: () => Promise<T>) => Promise<T>;
} {
  for (const name of Object.keys(attach))
    if (!/^[a-z_]+$/.test(name)) throw new Error(`openReadWorker: ${name} is not a schema name`);
  const worker = new ReadWorker(path, queueLimit, attach);
  return {
    db: new Kysely<Database>({ dialect: readWorkerDialect(worker) }),
    waiting: () => worker.waiting,
    oneLongRead: (run) => worker.oneLongRead(run),
  };
}
