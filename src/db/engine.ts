import { PostgresAdapter, type Kysely } from "kysely";

/** The database engines this binary runs on: SQLite under the data dir, or PostgreSQL (database.url). */
export type Engine = "sqlite" | "postgres";

/**
 * The engine behind DB, or behind a transaction of it (they share the adapter). For the
 * storage and search modules and migrations only: features never branch on the engine.
 */
export const engineOf = (db: Kysely<any>): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";

/** Picks the implementation of IMPLS for DB's engine: how the storage and search modules keep one API over both. */
export const forEngine = <T>(db: Kysely<any>, impls: Record<Engine, T>): T => impls[engineOf(db)];
