import { Database as SqliteDatabase } from "bun:sqlite";
import { Kysely, Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from "kysely";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { bunSqliteDialect } from "./sqlite-dialect";
import { migrations } from "./migrations";
import type { Database } from "./schema";

export type { Database } from "./schema";
export type Db = Kysely<Database>;

export interface Storage {
  db: Db;
  /** The raw connection, for the storage and search modules only (backups, FTS, pragmas). */
  sqlite: SqliteDatabase;
  close(): Promise<void>;
}

/** Opens (creating if needed) the SQLite database: WAL, busy timeout, foreign keys, one writer connection. */
export function openStorage(path: string): Storage {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path, { create: true, readwrite: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: bunSqliteDialect(sqlite) });
  let closed = false;
  return {
    db,
    sqlite,
    async close() {
      if (closed) return;
      closed = true;
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

export function createMigrator(db: Db): Migrator {
  return new Migrator({ db, provider: staticProvider, allowUnorderedMigrations: true });
}

/** Applies pending migrations; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const result = await createMigrator(db).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error");
    const err = result.error as Error;
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed: ${err.message ?? String(err)}`, { cause: err });
  }
  return result;
}

/** Names of migrations this binary knows that the database has not applied. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await createMigrator(db).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}

export const knownMigrationNames = (): string[] => Object.keys(migrations).sort();
