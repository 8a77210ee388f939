import { sql, type RawBuilder } from "kysely";
import type { Cursor } from "../../lib/paging";

/**
 * Keyset conditions on a (time, id) pair for lists paged with src/lib/paging.ts cursors.
 * Portable SQL (row-value comparison spelled out), so it runs on SQLite and PostgreSQL.
 */
export function beforeKey(timeColumn: string, idColumn: string, c: Cursor): RawBuilder<boolean> {
  const t = sql.ref(timeColumn);
  return sql<boolean>`(${t} < ${c.t} OR (${t} = ${c.t} AND ${sql.ref(idColumn)} < ${c.id}))`;
}

export function afterKey(timeColumn: string, idColumn: string, c: Cursor): RawBuilder<boolean> {
  const t = sql.ref(timeColumn);
  return sql<boolean>`(${t} > ${c.t} OR (${t} = ${c.t} AND ${sql.ref(idColumn)} > ${c.id}))`;
}
