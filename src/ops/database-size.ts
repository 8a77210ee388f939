import { sql, type Kysely } from "kysely";

/** The size of DB's PostgreSQL database as its server reports it (status, doctor and /metrics). */
export async function postgresDatabaseBytes(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT pg_database_size(current_database()) AS n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
