import { PostgresAdapter, sql, type Kysely } from "kysely";

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

/**
 * PostgreSQL: the schema DB works in, as an identifier to qualify names with in a function body
 * (pg_dump's restore runs bodies with a bare search_path).
 */
export async function currentSchemaOf(db: Kysely<any>) {
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  return sql.id(rows[0]!.schema);
}
