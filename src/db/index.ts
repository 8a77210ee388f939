import { Database as SqliteDatabase } from "bun:sqlite";
import {
  Kysely,
  Migrator,
  type Migration,
  type MigrationProvider,
  type MigrationResult,
  type MigrationResultSet,
} from "kysely";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { bunSqliteDialect } from "./sqlite-dialect";
import { GroupCommit } from "./group-commit";
import { migrations } from "./migrations";
import { snapshotBeforeMigrate } from "./premigrate";
import type { Database } from "./schema";

export type { Database } from "./schema";
export type Db = Kysely<Database>;

export interface Storage {
  db: Db;
  /** The raw connection, for the storage and search modules only (backups, FTS, pragmas). */
  sqlite: SqliteDatabase;
  /**
   * SQLite's PRAGMA data_version: it changes when another connection (another process: the
   * CLI beside a running server) commits, never for this connection's own writes. Caches of
   * rows other processes may change compare it on every read (a few microseconds).
   */
  dataVersion(): number;
  /**
   * Runs FN in a write transaction and settles once it has committed (or rolled back). On
   * SQLite the transactions asked for in one turn of the event loop share one commit, each
   * in a savepoint of its own (db/group-commit.ts); FN must use the Db it is given.
   */
  transaction<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** LISTENER gets how many transactions each commit carried (the write-group sizes). */
  onWriteGroup(listener: (size: number) => void): void;
  /** Statements run through `db` since the storage opened (in /metrics; tests pin hot paths with it). */
  statements(): number;
  close(): Promise<void>;
}

/** Opens (creating if needed) the SQLite database: WAL, busy timeout, foreign keys, one writer connection. */
export function openStorage(path: string): Storage {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true });
    // created owner-only, like the config and the secret; SQLite gives the WAL and shm files
    // the database file's permissions, so they are 0600 too
    if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  }
  const sqlite = new SqliteDatabase(path, { create: true, readwrite: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  const counter = { statements: 0 };
  const db = new Kysely<Database>({ dialect: bunSqliteDialect(sqlite, counter) });
  let closed = false;
  const dataVersion = sqlite.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const groups = new GroupCommit(db, sqlite);
  return {
    db,
    sqlite,
    dataVersion: () => dataVersion.get()!.data_version,
    transaction: (fn) => groups.run(fn),
    onWriteGroup: (listener) => groups.onGroup(listener),
    statements: () => counter.statements,
    async close() {
      if (closed) return;
      closed = true;
      await groups.close();
      dataVersion.finalize();
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
 */
function transactional(provider: MigrationProvider): MigrationProvider {
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

export function createMigrator(db: Db, provider: MigrationProvider = staticProvider): Migrator {
  return new Migrator({ db, provider: transactional(provider), allowUnorderedMigrations: true });
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
  const migrator = createMigrator(db, opts.provider);
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

/** Names of migrations this binary knows that the database has not applied. */
export async function pendingMigrations(db: Db, provider?: MigrationProvider): Promise<string[]> {
  const all = await createMigrator(db, provider).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}

export const knownMigrationNames = (): string[] => Object.keys(migrations).sort();
