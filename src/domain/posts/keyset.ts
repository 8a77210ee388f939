import { sql, type RawBuilder } from "kysely";
import type { Cursor } from "../../lib/paging";

/**
 * Keyset conditions on a (time, id) pair for lists paged with src/lib/paging.ts cursors.
 * Portable SQL (row-value comparison spelled out), so it runs on SQLite and PostgreSQL.
 * The leading plain bound on the time column is redundant for the result but lets the planner
 * start a (time, id) index range at the cursor; with the OR alone SQLite walks the index from
 * its end and a deep page costs every row before it.
 */
export function beforeKey(timeColumn: string, idColumn: string, c: Cursor): RawBuilder<boolean> {
  const t = sql.ref(timeColumn);
  return sql<boolean>`(${t} <= ${c.t} AND (${t} < ${c.t} OR (${t} = ${c.t} AND ${sql.ref(idColumn)} < ${c.id})))`;
}

export function afterKey(timeColumn: string, idColumn: string, c: Cursor): RawBuilder<boolean> {
  const t = sql.ref(timeColumn);
  return sql<boolean>`(${t} >= ${c.t} AND (${t} > ${c.t} OR (${t} = ${c.t} AND ${sql.ref(idColumn)} > ${c.id})))`;
}

/**
 * LIMIT as a literal: SQLite plans `LIMIT ?` for an unknown row count and then runs a page
 * query with correlated subqueries several times slower.
 * N comes from parseLimit (a small integer); anything else is a programming error.
 */
export function literalLimit(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`bad LIMIT ${n}`);
  return sql.lit(n);
}
