import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../db";
import { decodeCursor, encodeCursor } from "../../lib/paging";

/**
 * Index hits one search statement looks at, newest first. Hits the reader may not see (chats
 * they are not in, posts of removed or blocked authors) are passed over, so a page may come
 * back short with a cursor to read on: what a search costs is this window, never how many
 * rows hold the term.
 */
export const SEARCH_WINDOW = 2000;

/** The id below which the window of CURSOR starts (null: from the newest hit). */
export const windowBefore = (cursor: string | null): number | null => decodeCursor(cursor)?.id ?? null;

const idCursor = (id: number) => encodeCursor({ t: id, id });

/**
 * The page of LIMIT from ROWS (fetched with LIMIT + 1, newest first, from the window HITS: a
 * query of at most SEARCH_WINDOW ids) and the cursor that goes on below it, or below the
 * window when the window ended before the page was full.
 */
export async function pageOfWindow<R extends { id: number }>(
  db: Db,
  hits: RawBuilder<unknown>,
  rows: R[],
  limit: number,
): Promise<{ items: R[]; nextCursor: string | null }> {
  if (rows.length > limit) {
    const items = rows.slice(0, limit);
    return { items, nextCursor: idCursor(Number(items[items.length - 1]!.id)) };
  }
  const { rows: window } = await sql<{ n: number; last: number | null }>`WITH hits AS (${hits})
    SELECT count(*) AS n, min(id) AS last FROM hits`.execute(db);
  const { n, last } = window[0] ?? { n: 0, last: null };
  const more = Number(n) === SEARCH_WINDOW && last !== null;
  return { items: rows, nextCursor: more ? idCursor(Number(last)) : null };
}
