import { Database as SqliteDatabase, type Statement } from "bun:sqlite";
import {
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
} from "kysely";

/**
 * How long a statement waits for a lock another connection holds (SQLite's busy timeout):
 * the checkpoint worker cutting the WAL, the CLI writing beside a running server, a process
 * opening the file. A write transaction waits for the write lock without blocking the event
 * loop (beginWriteTransaction); this is the wait of everything else.
 */
export const BUSY_TIMEOUT_MS = 5000;

/** The values of a statement that takes none (never written to: there is nothing to convert). */
const NO_VALUES: unknown[] = [];

interface CachedStatement extends SqliteStatement {
  stmt: Statement;
}

/**
 * Runs compiled queries straight on the connection's prepared statements, skipping Kysely's
 * executor (connection provider, mutex, driver, result transform): for a small statement
 * those cost more CPU than SQLite spends running it. Only where Kysely would do nothing
 * else: see `run`.
 */
export class DirectRunner {
  constructor(
    private readonly sqlite: SqliteDatabase,
    private readonly prepare: (sql: string) => CachedStatement,
    private readonly counter: { statements: number },
  ) {}

  /**
   * The rows of QUERY run with PARAMETERS on DB's connection, or undefined when DB must go
   * through Kysely: it has plugins (they transform queries and results), or it is not a
   * transaction while one holds the connection (Kysely's mutex then makes the statement wait
   * for that transaction to end; run here, it would land inside it, in someone else's
   * savepoint). Outside a transaction a statement is atomic: bun:sqlite is synchronous.
   * PARAMETERS is the caller's own array, made for this call: its values are turned into
   * SQLite's in place (one array a statement, not two).
   */
  run<R>(db: Kysely<any>, query: CompiledQuery<R>, parameters: unknown[]): R[] | undefined {
    if (db.getExecutor().plugins.length !== 0) return undefined;
    if (db.isTransaction !== this.sqlite.inTransaction) {
      if (!db.isTransaction) return undefined;
      // SQLite rolled the whole transaction back (disk full, I/O): the rest must not autocommit
      throw new Error("the transaction was rolled back");
    }
    return this.#run(query.sql, parameters) as R[];
  }

  /** Runs SQL (no parameters) on the connection as it is: for the storage module's own statements (savepoints). */
  exec(sql: string): void {
    this.#run(sql, NO_VALUES);
  }

  #run(sql: string, values: unknown[]): unknown[] {
    const entry = this.prepare(sql);
    this.counter.statements++;
    for (let i = 0; i < values.length; i++) values[i] = toSqliteValue(values[i]);
    const args = values as never[];
    if (entry.reader) return entry.stmt.all(...args);
    entry.stmt.run(...args);
    return [];
  }
}

/** Kysely's SQLite adapter, carrying the connection's DirectRunner (transactions of a Kysely share its adapter). */
export class BunSqliteAdapter extends SqliteAdapter {
  constructor(readonly direct: DirectRunner) {
    super();
  }
}

/** The DirectRunner behind DB (or a transaction of it) when DB is a bun:sqlite database; undefined otherwise. */
export const directRunnerOf = (db: Kysely<any>): DirectRunner | undefined => {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof BunSqliteAdapter ? adapter.direct : undefined;
};

/**
 * Adapts bun:sqlite to Kysely's SQLite dialect. Prepared statements are cached per SQL
 * text: preparing is most of the cost of a small query.
 * COUNTER.statements counts every statement run (BEGIN and COMMIT included), through Kysely
 * or the DirectRunner.
 */
export function bunSqliteDialect(db: SqliteDatabase, counter: { statements: number }, cacheSize = 500): SqliteDialect {
  const cache = new Map<string, CachedStatement>();
  const prepare = (sql: string): CachedStatement => {
    let entry = cache.get(sql);
    if (entry) return entry;
    const stmt = db.prepare(sql);
    const params = (p: ReadonlyArray<unknown>) => p.map(toSqliteValue) as never[];
    entry = {
      stmt,
      reader: stmt.columnNames.length > 0,
      all: (p) => (counter.statements++, stmt.all(...params(p))),
      run: (p) => (counter.statements++, stmt.run(...params(p))),
      iterate: (p) => (counter.statements++, stmt.iterate(...params(p)) as IterableIterator<unknown>),
    };
    if (cache.size >= cacheSize) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
    }
    cache.set(sql, entry);
    return entry;
  };
  const wrapper: KyselySqliteDatabase = {
    close: () => {
      for (const entry of cache.values()) entry.stmt.finalize();
      cache.clear();
      db.close();
    },
    prepare,
  };
  const direct = new DirectRunner(db, prepare, counter);
  const begin = writeTransactionBegin(db, counter);
  return new (class extends SqliteDialect {
    override createAdapter() {
      return new BunSqliteAdapter(direct);
    }
    override createDriver() {
      return new (class extends SqliteDriver {
        override async beginTransaction(_connection: DatabaseConnection): Promise<void> {
          await begin();
        }
      })({ database: wrapper });
    }
  })({ database: wrapper });
}

/** Longest pause between two tries at the write lock: short, as the lock is held for a cut or a commit. */
const MAX_LOCK_PAUSE_MS = 16;

const isBusy = (err: unknown): boolean => String((err as { code?: unknown } | null)?.code).startsWith("SQLITE_BUSY");

/**
 * Every transaction through Kysely is a write transaction begun IMMEDIATE: it takes the write
 * lock at BEGIN. A deferred BEGIN takes it at the first write, and a transaction that has
 * read by then (a send checks the chat first) is refused at once with "database is locked"
 * when another connection holds the lock, whatever the busy timeout: SQLite calls the busy
 * handler only for a connection holding no read snapshot, which could be stale by the time
 * the lock is free. The checkpoint worker takes the write lock while it cuts the WAL.
 *
 * The BEGIN is tried with no busy timeout, and while the lock is held elsewhere it is tried
 * again after a pause that yields the event loop, for up to BUSY_TIMEOUT_MS: reads and
 * everything else carry on while the write waits (a busy timeout would sleep the whole
 * process inside SQLite).
 */
function writeTransactionBegin(db: SqliteDatabase, counter: { statements: number }): () => Promise<void> {
  // SQLite sets the busy timeout when it compiles the PRAGMA, so these are compiled on every
  // use: a prepared one would only read the value back
  const noWait = () => db.run("PRAGMA busy_timeout = 0");
  const wait = () => db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const beginImmediate = db.prepare("BEGIN IMMEDIATE");
  /** null once begun; SQLite's "database is locked" while another connection holds the lock */
  const tryBegin = (): unknown => {
    counter.statements++;
    noWait();
    try {
      beginImmediate.run();
      return null;
    } catch (err) {
      if (isBusy(err)) return err;
      throw err;
    } finally {
      wait();
    }
  };
  return async () => {
    let busy = tryBegin();
    if (busy === null) return;
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; performance.now() < deadline; pause = Math.min(pause * 2, MAX_LOCK_PAUSE_MS)) {
      await Bun.sleep(pause);
      busy = tryBegin();
      if (busy === null) return;
    }
    throw busy;
  };
}

/** A parameter as bun:sqlite takes it (booleans as 0/1, dates as epoch ms, undefined as NULL). */
export function toSqliteValue(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Date) return v.getTime();
  if (v === undefined) return null;
  return v;
}
