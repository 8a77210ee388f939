import { sql } from "kysely";
import type { Db } from "../../db";
import type { PostRow } from "../posts/table";
import { decodeCursor, encodeCursor } from "../../lib/paging";
import { fieldError } from "../../lib/errors";
import { forEngine } from "../../db/engine";
import { ftsQuery, normalizeSearchText, searchTerms, tsqueryText, tsvectorText } from "./normalize";

/**
 * Full-text search over posts, behind an interface so the engine can change (SQLite FTS5,
 * PostgreSQL tsvector, another search server). Posts call indexPost/removePost on every
 * change; the engine answers ranked post ids with an opaque cursor.
 */
export interface PostSearchEngine {
  indexPost(db: Db, postId: number, text: string): Promise<void>;
  removePost(db: Db, postId: number): Promise<void>;
  searchPosts(
    db: Db,
    q: string,
    opts: { excludeAuthorIds: number[]; cursor: string | null; limit: number },
  ): Promise<{ postIds: number[]; nextCursor: string | null }>;
}

/** Ranked keyset cursor: the score of the last hit (lower ranks first) and its id. */
function decodeRankCursor(raw: string | null): { score: number; id: number } | null {
  const cursor = decodeCursor(raw, "cursor", "score");
  return cursor && { score: cursor.t, id: cursor.id };
}

const encodeRankCursor = (score: number, id: number) => encodeCursor({ t: score, id });

/** A page of LIMIT from ROWS (one more fetched than shown, to know whether a next page exists). */
function rankedPage(rows: { id: number; score: number }[], limit: number) {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    postIds: page.map((r) => r.id),
    nextCursor: rows.length > limit && last ? encodeRankCursor(last.score, last.id) : null,
  };
}

/** SQLite FTS5 (unicode61, diacritics removed), ranked by bm25 with the post id as tie-breaker. */
export const sqliteFtsPostSearch: PostSearchEngine = {
  async indexPost(db, postId, text) {
    await sql`DELETE FROM posts_fts WHERE rowid = ${postId}`.execute(db);
    if (text.trim().length > 0)
      await sql`INSERT INTO posts_fts (rowid, body) VALUES (${postId}, ${normalizeSearchText(text)})`.execute(db);
  },

  async removePost(db, postId) {
    await sql`DELETE FROM posts_fts WHERE rowid = ${postId}`.execute(db);
  },

  async searchPosts(db, q, { excludeAuthorIds, cursor, limit }) {
    const after = decodeRankCursor(cursor);
    const terms = searchTerms(q);
    if (terms.length === 0) return { postIds: [], nextCursor: null };
    const excluded = excludeAuthorIds.length ? sql`AND p.author_id NOT IN (${sql.join(excludeAuthorIds)})` : sql``;
    const keyset = after
      ? sql`AND (bm25(posts_fts) > ${after.score} OR (bm25(posts_fts) = ${after.score} AND p.id > ${after.id}))`
      : sql``;
    const { rows } = await sql<{ id: number; score: number }>`
      SELECT p.id AS id, bm25(posts_fts) AS score
      FROM posts_fts
      JOIN posts p ON p.id = posts_fts.rowid
      JOIN users u ON u.id = p.author_id
      WHERE posts_fts MATCH ${ftsQuery(terms)} AND u.deleted_at IS NULL AND u.disabled_at IS NULL ${excluded} ${keyset}
      ORDER BY bm25(posts_fts), p.id
      LIMIT ${limit + 1}`.execute(db);
    return rankedPage(rows, limit);
  },
};

/**
 * PostgreSQL full-text search: lexemes made by the same rules as the SQLite index (see
 * normalize.ts), ranked by ts_rank (term frequency over log of the length, as bm25 weighs
 * them), negated so that, as with bm25, the lower score ranks first.
 */
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

  async searchPosts(db, q, { excludeAuthorIds, cursor, limit }) {
    const after = decodeRankCursor(cursor);
    const query = tsqueryText(searchTerms(q));
    if (!query) return { postIds: [], nextCursor: null };
    const score = sql<number>`(-ts_rank(f.body, ${query}::tsquery, 1))::float8`;
    const excluded = excludeAuthorIds.length ? sql`AND p.author_id NOT IN (${sql.join(excludeAuthorIds)})` : sql``;
    const keyset = after
      ? sql`AND (${score} > ${after.score} OR (${score} = ${after.score} AND p.id > ${after.id}))`
      : sql``;
    const { rows } = await sql<{ id: number; score: number }>`
      SELECT p.id AS id, ${score} AS score
      FROM posts_fts f
      JOIN posts p ON p.id = f.post_id
      JOIN users u ON u.id = p.author_id
      WHERE f.body @@ ${query}::tsquery AND u.deleted_at IS NULL AND u.disabled_at IS NULL ${excluded} ${keyset}
      ORDER BY score, p.id
      LIMIT ${limit + 1}`.execute(db);
    return rankedPage(rows, limit);
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
