import { Database as SqliteDatabase } from "bun:sqlite";
import {
  Kysely,
  Migrator,
  sql,
  type Migration,
  type MigrationProvider,
  type MigrationResult,
  type MigrationResultSet,
} from "kysely";
import { closeSync, existsSync, openSync, readSync, rmSync, truncateSync } from "node:fs";
import { ensureDataDir } from "../config/layout";
import { dirname } from "node:path";
import { BUSY_TIMEOUT_MS, bunSqliteDialect } from "./sqlite-dialect";
import { registerSearchBudget } from "./search-budget";
import { openReadWorker } from "./read-worker";
import { GroupCommit } from "./group-commit";
import { bunPostgresDialect } from "./postgres-dialect";
import type { Engine } from "./engine";
import { isRetryableConflict } from "./errors";
import { migrations } from "./migrations";
import { snapshotBeforeMigrate } from "./premigrate";
import {
  SchemaTooNewError,
  readSchemaMinimum,
  recordBreakingMigration,
  schemaIncompatibility,
  schemaLevel,
  type GuardedMigration,
} from "./schema-guard";
import type { Database } from "./schema";

export type { Database } from "./schema";
export type Db = Kysely<Database>;

export interface Storage {
  readonly engine: Engine;
  db: Db;
  /**
   * For reads that may be long (searches, an account's export, the admin area's lists): on
   * SQLite a read-only connection in a worker thread, so the serving thread answers everything
   * else meanwhile (read-worker.ts); it sees what is committed, and runs no transactions. On
   * PostgreSQL `db` itself (the database does the work; the serving thread only waits).
   */
  longReads: Db;
  /**
   * Runs RUN, whose statements on longReads make one long read (a search of several lists):
   * on SQLite they count once against limits.longReadQueue, and RUN is refused at once with
   * ReadQueueFullError when that many wait already. On PostgreSQL it just runs RUN.
   */
  oneLongRead<T>(run: () => Promise<T>): Promise<T>;
  /**
   * The raw SQLite connection, for the storage and operations modules only (backups,
   * checkpoints, pragmas); null on PostgreSQL.
   */
  sqlite: SqliteDatabase | null;
  /**
   * SQLite with a database file: the file of the messages' search index beside it, a database
   * of its own written by the index's worker (src/domain/search/index-worker.ts), so that
   * writing the index never takes the instance database's one write lock. Long reads see it as
   * the schema `search`. Null in memory and on PostgreSQL (where the index is a table).
   */
  readonly searchIndexPath: string | null;
  /** Runs LISTENER when the storage closes (before its connections do). */
  onClose(listener: () => void | Promise<void>): void;
  /**
   * Runs FN in a write transaction and settles once it has committed (or rolled back). On
   * SQLite the transactions asked for in one turn of the event loop share one commit, each
   * in a savepoint of its own (db/group-commit.ts); FN must use the Db it is given.
   */
  transaction<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Takes, in the transaction DB belongs to and until it ends, the lock of queue KEY of TABLE,
   * so rows appended to that queue by concurrent transactions become visible in the order of
   * their ids. A reader that acknowledges "everything below id N" then never drops a row that
   * committed after it read, under a lower id. SQLite: nothing to take (one writer; a write
   * group commits at once). PostgreSQL: a transaction-level advisory lock.
   */
  lockQueue(db: Db, table: OrderedQueue, key: number): Promise<void>;
  /**
   * SQLite: lets the running write transactions finish and starts no more until the answer is
   * called (or MAX_MS passed), so another connection (the checkpoint worker's) can take the
   * write lock. null on PostgreSQL.
   */
  readonly holdWrites: ((maxMs: number) => Promise<() => void>) | null;
  /** LISTENER gets how many transactions each commit carried (the write-group sizes). */
  onWriteGroup(listener: (size: number) => void): void;
  /** Statements run through `db` since the storage opened (in /metrics; tests pin hot paths with it). */
  statements(): number;
  /** Rows written through this storage so far (the CLI tells a running server when it wrote). */
  changes(): number;
  /** One round trip to the database: what /readyz checks. */
  ping(): Promise<void>;
  /** What `status` and `doctor` name: "SQLite 3.x" or "PostgreSQL 15.x". */
  describe(): Promise<string>;
  close(): Promise<void>;
}

/** Opens the instance's database: PostgreSQL when database.url is set, else SQLite at SQLITE_PATH. */
export function openInstanceStorage(databaseUrl: string, sqlitePath: string, opts: StorageOptions = {}): Storage {
  return databaseUrl ? openPostgresStorage(databaseUrl, { poolSize: opts.poolSize }) : openStorage(sqlitePath, opts);
}

export interface StorageOptions {
  /** SQLite: long reads that may wait for the read worker before more are refused (read-worker.ts) */
  longReadQueue?: () => number;
  /** PostgreSQL: pooled connections (database.poolSize) */
  poolSize?: number;
}

/** Long reads waiting for the read worker when the caller names no bound. */
const LONG_READ_QUEUE = 64;

/** Tables read as ordered queues (see Storage.lockQueue), each with its advisory-lock class on PostgreSQL. */
const QUEUE_LOCK_CLASSES = { bot_updates: 1 } as const;
export type OrderedQueue = keyof typeof QUEUE_LOCK_CLASSES;

/** Times a transaction PostgreSQL aborted for a conflict is tried in all. */
const CONFLICT_ATTEMPTS = 5;

/** PostgreSQL at URL (postgres://user:pass@host:port/db) through a pool of Bun.SQL connections. */
export function openPostgresStorage(url: string, opts: { poolSize?: number } = {}): Storage {
  let written = 0;
  const counter = { statements: 0 };
  const dialect = bunPostgresDialect({ url, max: opts.poolSize, counter, onWrite: () => void written++ });
  const db = new Kysely<Database>({ dialect });
  dialect.pooled.root = db;
  let closed = false;
  const groupListeners: Array<(size: number) => void> = [];
  const closeListeners: Array<() => void | Promise<void>> = [];
  return {
    engine: "postgres",
    db,
    longReads: db,
    oneLongRead: (run) => run(),
    sqlite: null,
    searchIndexPath: null,
    onClose: (listener) => void closeListeners.push(listener),
    holdWrites: null,
    // each transaction is a commit of its own (PostgreSQL's concurrent writers need no grouping)
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await db.transaction().execute((trx) => fn(trx));
          for (const listener of groupListeners) listener(1);
          return result;
        } catch (err) {
          // a deadlock (two wallets locked in opposite orders) or a serialization failure
          // rolled FN back whole: it runs again from the start
          if (attempt < CONFLICT_ATTEMPTS && isRetryableConflict(err)) continue;
          throw err;
        }
      }
    },
    async lockQueue(executor, table, key) {
      // the two-int form: keys beyond int4 share a lock, which only serialises a little more
      await sql`SELECT pg_advisory_xact_lock(${QUEUE_LOCK_CLASSES[table]}::int, ${key % 2 ** 31}::int)`.execute(
        executor,
      );
    },
    onWriteGroup: (listener) => void groupListeners.push(listener),
    statements: () => counter.statements,
    changes: () => written,
    async ping() {
      await dialect.pool.unsafe("SELECT 1");
    },
    async describe() {
      const [row] = (await dialect.pool.unsafe("SHOW server_version")) as { server_version: string }[];
      return `PostgreSQL ${row?.server_version ?? "?"}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const listener of closeListeners) await listener();
      await db.destroy();
    },
  };
}

/** What every SQLite database file starts with. */
const SQLITE_HEADER = Buffer.from("SQLite format 3\0");

/**
 * The search index's file ready for long reads to attach: an empty file (an empty database) where
 * there is none or where it is not a database, so long reads see it from the start, before the
 * index's worker has made its tables (it makes the index again from the messages).
 */
function prepareSearchIndexFile(path: string): void {
  if (existsSync(path)) {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const fd = openSync(path, "r");
    const read = readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    if (read === 0 || head.equals(SQLITE_HEADER)) return;
    for (const suffix of ["-wal", "-shm"]) rmSync(path + suffix, { force: true });
    truncateSync(path, 0);
    return;
  }
  closeSync(openSync(path, "a", 0o600));
}

/** Opens (creating if needed) the SQLite database: WAL, busy timeout, foreign keys, one writer connection. */
export function openStorage(path: string, opts: StorageOptions = {}): Storage {
  if (path !== ":memory:") {
    ensureDataDir(dirname(path));
    // created owner-only, like the config and the secret; SQLite gives the WAL and shm files
    // the database file's permissions, so they are 0600 too
    if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  }
  const sqlite = new SqliteDatabase(path, { create: true, readwrite: true });
  // the busy timeout first: switching to WAL takes a lock that processes opening the file at
  // the same moment (several CLI commands at once) would otherwise meet as "database is locked"
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  registerSearchBudget(sqlite);
  const counter = { statements: 0 };
  let closed = false;
  const totalChanges = sqlite.prepare<{ n: number }, []>("SELECT total_changes() AS n");
  const changes = () => totalChanges.get()!.n;
  const db = new Kysely<Database>({ dialect: bunSqliteDialect(sqlite, counter) });
  const groups = new GroupCommit(db, sqlite);
  const searchIndexPath = path === ":memory:" ? null : `${path}-search`;
  if (searchIndexPath) prepareSearchIndexFile(searchIndexPath);
  // an in-memory database is this connection's alone: its long reads stay on it
  const worker =
    searchIndexPath === null
      ? null
      : openReadWorker(path, opts.longReadQueue ?? (() => LONG_READ_QUEUE), { search: searchIndexPath });
  const longReads = worker?.db ?? db;
  const closeListeners: Array<() => void | Promise<void>> = [];
  return {
    engine: "sqlite",
    db,
    longReads,
    oneLongRead: (run) => worker?.oneLongRead(run) ?? run(),
    sqlite,
    searchIndexPath,
    onClose: (listener) => void closeListeners.push(listener),
    transaction: (fn) => groups.run(fn),
    lockQueue: async () => {},
    holdWrites: (maxMs) => groups.holdWrites(maxMs),
    onWriteGroup: (listener) => groups.onGroup(listener),
    statements: () => counter.statements,
    changes,
    async ping() {
      // reads the file's header through this connection: a closed or unreadable database fails
      sqlite.query("PRAGMA schema_version").get();
    },
    async describe() {
      return `SQLite ${(sqlite.query("SELECT sqlite_version() AS v").get() as { v: string }).v}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await groups.close();
      for (const listener of closeListeners) await listener();
      totalChanges.finalize();
      if (longReads !== db) await longReads.destroy();
      try {
        sqlite.exec("PRAGMA optimize");
      } catch {
        // optimize is advisory; closing must still happen
      }
      await db.destroy();
    },
  };
}

const staticProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  },
};

/**
 * Kysely's SQLite adapter runs migrations outside transactions; each one is wrapped in
 * its own here, so a failing migration leaves the database as the previous one left it.
 * (On PostgreSQL the adapter already runs them in a transaction, DDL included.)
 */
function transactional(db: Db, provider: MigrationProvider): MigrationProvider {
  if (db.getExecutor().adapter.supportsTransactionalDdl) return provider;
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(await provider.getMigrations())) {
        out[name] = {
          up: (db) => db.transaction().execute((trx) => m.up(trx)),
          down: m.down && ((db) => db.transaction().execute((trx) => m.down!(trx))),
        };
      }
      return out;
    },
  };
}

/** A migration marked `breaksOlderCode` also raises the database's recorded minimum, in its own transaction. */
function guarded(provider: MigrationProvider): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(await provider.getMigrations())) {
        out[name] = (m as GuardedMigration).breaksOlderCode
          ? {
              up: async (db) => {
                await m.up(db);
                await recordBreakingMigration(db, name);
              },
              down: m.down,
            }
          : m;
      }
      return out;
    },
  };
}

export function createMigrator(db: Db, provider: MigrationProvider = staticProvider): Migrator {
  return new Migrator({ db, provider: transactional(db, guarded(provider)), allowUnorderedMigrations: true });
}

/** This binary's compatibility level: the newest migration of PROVIDER (by default the ones it was built with). */
export async function binarySchemaLevel(provider: MigrationProvider = staticProvider): Promise<string> {
  return schemaLevel(Object.keys(await provider.getMigrations()));
}

/**
 * Why code knowing PROVIDER's migrations must not use DB (one line), or null. A database
 * migrated by a newer binary with only additive migrations is fine: its unknown migrations
 * are left alone.
 */
export async function schemaProblem(db: Db, provider: MigrationProvider = staticProvider): Promise<string | null> {
  return schemaIncompatibility(await readSchemaMinimum(db), await binarySchemaLevel(provider));
}

export interface MigrateOptions {
  /** called before each pending migration, and again with its duration once applied */
  onProgress?: (p: { name: string; index: number; total: number; ms?: number }) => void;
  /** false skips the automatic snapshot taken before migrating a non-empty database */
  snapshot?: boolean;
  provider?: MigrationProvider;
}

/**
 * Applies pending migrations one by one, after a snapshot of a non-empty database
 * (data/backups/pre-migrate-<time>.db); throws with the failing migration's name.
 */
export async function migrateToLatest(
  db: Db,
  opts: MigrateOptions = {},
): Promise<MigrationResultSet & { snapshot: string | null }> {
  const provider = opts.provider ?? staticProvider;
  // before anything is written: an older binary neither migrates nor serves a schema marked past it
  const problem = await schemaProblem(db, provider);
  if (problem) throw new SchemaTooNewError(problem);
  if (await upToDate(db, provider)) return { results: [], snapshot: null };
  const migrator = createMigrator(db, provider);
  const pending = (await migrator.getMigrations()).filter((m) => !m.executedAt).map((m) => m.name);
  if (pending.length === 0) return { results: [], snapshot: null };
  const snapshot = opts.snapshot === false ? null : await snapshotBeforeMigrate(db);
  const results: MigrationResult[] = [];
  for (const [i, name] of pending.entries()) {
    opts.onProgress?.({ name, index: i + 1, total: pending.length });
    const t0 = performance.now();
    const step = await migrator.migrateUp();
    results.push(...(step.results ?? []));
    if (step.error) {
      const failed = step.results?.find((r) => r.status === "Error");
      const err = step.error as Error;
      throw new Error(`migration ${failed?.migrationName ?? name} failed: ${err.message ?? String(err)}`, {
        cause: err,
      });
    }
    if (!step.results?.length) break;
    opts.onProgress?.({ name, index: i + 1, total: pending.length, ms: performance.now() - t0 });
  }
  return { results, snapshot };
}

/**
 * Whether every migration of PROVIDER is applied, read with one SELECT: Kysely's Migrator
 * introspects every table of the schema before it reads its history, a cost each restart of an
 * up-to-date server would pay for nothing. Any doubt (no history table yet) answers false.
 */
async function upToDate(db: Db, provider: MigrationProvider): Promise<boolean> {
  let applied: Set<string>;
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
    applied = new Set(rows.map((r) => r.name));
  } catch {
    return false;
  }
  return Object.keys(await provider.getMigrations()).every((name) => applied.has(name));
}

/** Names of migrations this binary knows that the database has not applied. */
export async function pendingMigrations(db: Db, provider?: MigrationProvider): Promise<string[]> {
  const all = await createMigrator(db, provider).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}

export const knownMigrationNames = (): string[] => Object.keys(migrations).sort();
