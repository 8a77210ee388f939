import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../db";
import type { PostRow } from "../posts/table";
import { forEngine } from "../../db/engine";
import { withinBudget } from "./budget";
import { pageOfWindow, SEARCH_WINDOW, windowBefore } from "./window";
import { ftsQuery, normalizeSearchText, searchTerms, tsqueryText, tsvectorText } from "./normalize";

/**
 * Full-text search over posts, behind an interface so the engine can change (SQLite FTS5,
 * PostgreSQL tsvector, another search server). Posts call indexPost/removePost on every
 * change; the engine answers post ids, newest first, with an opaque cursor.
 */
export interface PostSearchEngine {
  indexPost(db: Db, postId: number, text: string): Promise<void>;
  removePost(db: Db, postId: number): Promise<void>;
  searchPosts(db: Db, q: string, opts: PostSearchOptions): Promise<{ postIds: number[]; nextCursor: string | null }>;
}

export interface PostSearchOptions {
  excludeAuthorIds: number[];
  cursor: string | null;
  limit: number;
  /** time one statement may take (limits.searchBudgetMs) */
  budgetMs: number;
}

/**
 * The page of OPTS from the index hits HITS (post ids below the cursor, newest first): the
 * posts whose authors are shown (window.ts).
 */
async function pageOfHits(
  db: Db,
  hits: RawBuilder<unknown>,
  { excludeAuthorIds, limit, budgetMs }: PostSearchOptions,
): Promise<{ postIds: number[]; nextCursor: string | null }> {
  const excluded = excludeAuthorIds.length ? sql`AND p.author_id NOT IN (${sql.join(excludeAuthorIds)})` : sql``;
  const { rows } = await sql<{ id: number }>`WITH hits AS (${hits})
    SELECT p.id AS id FROM hits
    JOIN posts p ON p.id = hits.id
    JOIN users u ON u.id = p.author_id
    WHERE ${withinBudget(db, budgetMs, sql`hits.id`)}
      AND u.deleted_at IS NULL AND u.disabled_at IS NULL ${excluded}
    ORDER BY p.id DESC
    LIMIT ${limit + 1}`.execute(db);
  const { items, nextCursor } = await pageOfWindow(db, hits, rows, limit);
  return { postIds: items.map((r) => Number(r.id)), nextCursor };
}

/** SQLite FTS5 (unicode61, diacritics removed), newest first. */
export const sqliteFtsPostSearch: PostSearchEngine = {
  async indexPost(db, postId, text) {
    await sql`DELETE FROM posts_fts WHERE rowid = ${postId}`.execute(db);
    if (text.trim().length > 0)
      await sql`INSERT INTO posts_fts (rowid, body) VALUES (${postId}, ${normalizeSearchText(text)})`.execute(db);
  },

  async removePost(db, postId) {
    await sql`DELETE FROM posts_fts WHERE rowid = ${postId}`.execute(db);
  },

  async searchPosts(db, q, opts) {
    const before = windowBefore(opts.cursor);
    const terms = searchTerms(q);
    if (terms.length === 0) return { postIds: [], nextCursor: null };
    const below = before === null ? sql`` : sql`AND rowid < ${before}`;
    const hits = sql`SELECT rowid AS id FROM posts_fts WHERE posts_fts MATCH ${ftsQuery(terms)} ${below}
      ORDER BY rowid DESC LIMIT ${SEARCH_WINDOW}`;
    return pageOfHits(db, hits, opts);
  },
};

/** PostgreSQL full-text search: lexemes made by the same rules as the SQLite index (see normalize.ts), newest first. */
export const postgresFtsPostSearch: PostSearchEngine = {
  async indexPost(db, postId, text) {
    const body = tsvectorText(text);
    if (!body) {
      await sql`DELETE FROM posts_fts WHERE post_id = ${postId}`.execute(db);
      return;
    }
    await sql`INSERT INTO posts_fts (post_id, body) VALUES (${postId}, ${body}::tsvector)
      ON CONFLICT (post_id) DO UPDATE SET body = excluded.body`.execute(db);
  },

  async removePost(db, postId) {
    await sql`DELETE FROM posts_fts WHERE post_id = ${postId}`.execute(db);
  },

  async searchPosts(db, q, opts) {
    const before = windowBefore(opts.cursor);
    const query = tsqueryText(searchTerms(q));
    if (!query) return { postIds: [], nextCursor: null };
    const below = before === null ? sql`` : sql`AND post_id < ${before}`;
    const hits = sql`SELECT post_id AS id FROM posts_fts WHERE body @@ ${query}::tsquery ${below}
      ORDER BY post_id DESC LIMIT ${SEARCH_WINDOW}`;
    return pageOfHits(db, hits, opts);
  },
};

/** The post rows of IDS in the engine's ranked order (ids no longer found are skipped). */
export async function postRowsInOrder(db: Db, ids: number[]): Promise<PostRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom("posts").selectAll().where("id", "in", ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

const engines = { sqlite: sqliteFtsPostSearch, postgres: postgresFtsPostSearch };

/** The engine of the database it is given (the one the instance was opened on). */
export const postSearch: PostSearchEngine = {
  indexPost: (db, postId, text) => forEngine(db, engines).indexPost(db, postId, text),
  removePost: (db, postId) => forEngine(db, engines).removePost(db, postId),
  searchPosts: (db, q, opts) => forEngine(db, engines).searchPosts(db, q, opts),
};
