import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Db } from "../../db";
import { decodeCursor, pageOf } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { forEngine } from "../../db/engine";
import { ftsQuery, searchTerms, tsqueryText } from "./normalize";

/** A LIKE pattern for "starts with S"; control characters (which no name has, and PostgreSQL's text cannot hold) become spaces. */
const likePrefix = (s: string) => s.replace(/\p{Cc}/gu, " ").replace(/[\\%_]/g, (c) => `\\${c}`) + "%";

/**
 * COLUMN starts with PREFIX, through COLUMN's index: on SQLite a range of the (binary) index,
 * as its LIKE is case-insensitive and uses no index; on PostgreSQL a LIKE, which the
 * text_pattern_ops index serves (migration 20261129040100_prefix_search) whatever the collation.
 */
export function startsWith(db: Db, column: string, prefix: string): RawBuilder<SqlBool> {
  const ref = sql.ref(column);
  return forEngine(db, {
    // every string that starts with PREFIX sorts before PREFIX followed by the last code point
    sqlite: () => sql<SqlBool>`(${ref} >= ${prefix} AND ${ref} < ${prefix + "\u{10FFFF}"})`,
    postgres: () => sql<SqlBool>`${ref} LIKE ${likePrefix(prefix)} ESCAPE '\\'`,
  })();
}

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
      const byName = startsWith(db, "username_lower", plain);
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
