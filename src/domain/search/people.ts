import { sql } from "kysely";
import type { Db } from "../../db";
import { decodeCursor, pageOf } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { forEngine } from "../../db/engine";
import { ftsQuery, searchTerms, tsqueryText } from "./normalize";

/** A LIKE pattern for "starts with S"; control characters (which no name has, and PostgreSQL's text cannot hold) become spaces. */
export const likePrefix = (s: string) => s.replace(/\p{Cc}/gu, " ").replace(/[\\%_]/g, (c) => `\\${c}`) + "%";

/** Ids of accounts any word of whose username or display name starts with TERMS' words (at most 5000). */
const nameWordHits = {
  async sqlite(db: Db, terms: string[]): Promise<number[]> {
    const { rows } = await sql<{
      id: number;
    }>`SELECT rowid AS id FROM users_fts WHERE users_fts MATCH ${ftsQuery(terms)} LIMIT 5000`.execute(db);
    return rows.map((r) => r.id);
  },
  // the expression of the users_fts index (migration 20261122000300_posts), so it is used
  async postgres(db: Db, terms: string[]): Promise<number[]> {
    const query = tsqueryText(terms);
    if (!query) return [];
    const { rows } = await sql<{ id: number }>`SELECT id FROM users
      WHERE to_tsvector('simple'::regconfig, social_unaccent(username || ' ' || display_name))
        @@ to_tsquery('simple'::regconfig, social_unaccent(${query}))
      LIMIT 5000`.execute(db);
    return rows.map((r) => r.id);
  },
};

/**
 * People whose username starts with Q, or any word of whose username or display name
 * starts with Q's words (any script, case and diacritics ignored). Alphabetical by
 * username; deleted, system and blocked-either-way accounts are left out.
 */
export async function searchPeople(
  db: Db,
  q: string,
  opts: { excludeIds: number[]; cursor: string | null; limit: number },
): Promise<{ users: UserRow[]; nextCursor: string | null }> {
  const after = decodeCursor(opts.cursor, "cursor", "name");
  const plain = q.trim().replace(/^@/, "").toLowerCase();
  const terms = searchTerms(plain);
  if (!plain || !terms.length) return { users: [], nextCursor: null };
  const hits = await forEngine(db, nameWordHits)(db, terms);
  let query = db
    .selectFrom("users")
    .selectAll()
    .where("deleted_at", "is", null)
    .where("is_system", "=", 0)
    .where((eb) => {
      const byName = eb("username_lower", "like", sql<string>`${likePrefix(plain)} ESCAPE '\\'`);
      return hits.length ? eb.or([byName, eb("id", "in", hits)]) : byName;
    });
  if (opts.excludeIds.length) query = query.where("id", "not in", opts.excludeIds);
  // usernames are unique: the name alone places the cursor
  if (after !== null) query = query.where("username_lower", ">", after.t);
  const rows = await query
    .orderBy("username_lower")
    .limit(opts.limit + 1)
    .execute();
  const { items, nextCursor } = pageOf(rows, opts.limit, (u) => ({ t: u.username_lower, id: u.id }));
  return { users: items, nextCursor };
}
