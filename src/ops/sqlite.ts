import { Database as SqliteDatabase } from "bun:sqlite";
import { existsSync } from "node:fs";
import type { SchemaMinimum } from "../db/schema-guard";

/**
 * Raw SQLite access for operations (backup, restore, status): these open their own
 * short-lived connections, so they work while a serving process holds the database.
 */

/** Opens an existing database read-only; never creates one. */
export function openReadOnly(path: string): SqliteDatabase {
  if (!existsSync(path)) throw new Error(`no database at ${path}`);
  const db = new SqliteDatabase(path, { readonly: true });
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * A consistent copy of the live database at `dest` (VACUUM INTO). It runs in a read
 * transaction of its own connection: in WAL mode writers carry on meanwhile, and the
 * copy holds exactly what was committed when it started. Returns the time it took.
 */
export function vacuumInto(source: string, dest: string): number {
  const t0 = performance.now();
  const db = new SqliteDatabase(source, { readwrite: true, create: false });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
  }
  return performance.now() - t0;
}

export function tableExists(db: SqliteDatabase, name: string): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
}

export function columnNames(db: SqliteDatabase, table: string): string[] {
  return (db.query(`PRAGMA table_info("${table.replace(/"/g, '""')}")`).all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
}

/** Names of the migrations applied to a database, oldest first (empty for a fresh one). */
export function appliedMigrations(db: SqliteDatabase): string[] {
  if (!tableExists(db, "kysely_migration")) return [];
  return (db.query("SELECT name FROM kysely_migration ORDER BY name").all() as Array<{ name: string }>).map(
    (r) => r.name,
  );
}

/** The database's recorded minimum schema (src/db/schema-guard.ts), read through a plain connection. */
export function schemaMinimumOf(db: SqliteDatabase): SchemaMinimum | null {
  if (!tableExists(db, "schema_guard")) return null;
  const row = db.query("SELECT min_schema, min_version FROM schema_guard WHERE id = 1").get() as {
    min_schema: string;
    min_version: string;
  } | null;
  return row ? { schema: row.min_schema, version: row.min_version } : null;
}

/** Runs `PRAGMA integrity_check` and returns its verdict ("ok" when sound). */
export function integrityCheck(db: SqliteDatabase): string {
  const rows = db.query("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>;
  return rows.map((r) => r.integrity_check).join("; ");
}
