import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from "kysely";
import type { Database, Db } from "../../db";
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

/**
 * Accounts the name index finds, at most this many a search: the ones a word of a name starts
 * with the typed word. Sorting them by username costs a row each, so a word that thousands of
 * names share reads the first thousand the index holds (typing more narrows it).
 */
const NAME_HITS = 1000;

/** A query of the ids of accounts any word of whose username or display name starts with TERMS' words (NAME_HITS at most). */
const nameWordHits = {
  sqlite(db: Db, terms: string[]): RawBuilder<{ id: number }> {
    return sql`SELECT rowid AS id FROM users_fts WHERE users_fts MATCH ${ftsQuery(terms)} LIMIT ${NAME_HITS}`;
  },
  // the expression of the users_fts index (migration 20261122000300_posts), so it is used
  postgres(db: Db, terms: string[]): RawBuilder<{ id: number }> | null {
    const query = tsqueryText(terms);
    if (!query) return null;
    return sql`SELECT id FROM users
      WHERE to_tsvector('simple'::regconfig, social_unaccent(username || ' ' || display_name))
        @@ to_tsquery('simple'::regconfig, social_unaccent(${query}))
      LIMIT ${NAME_HITS}`;
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
  const hits = forEngine(db, nameWordHits)(db, terms);
  // two walks in username order, each stopping at a page: the username index's range, and the
  // accounts the name index found; a single statement with both as one OR condition read every
  // account either matched (a common first name, a prefix every username shares) to sort them
  const walk = (matches: (eb: ExpressionBuilder<Database, "users">) => Expression<SqlBool>) => {
    let query = db
      .selectFrom("users")
      .select("id")
      .where("deleted_at", "is", null)
      .where("is_system", "=", 0)
      .where(matches);
    if (opts.excludeIds.length) query = query.where("id", "not in", opts.excludeIds);
    // usernames are unique: the name alone places the cursor
    if (after !== null) query = query.where("username_lower", ">", after.t);
    return query.orderBy("username_lower").limit(opts.limit + 1);
  };
  const byUsername = walk(() => startsWith(db, "username_lower", plain));
  const page = hits
    ? db
        .selectFrom(byUsername.as("a"))
        .select("a.id")
        .unionAll(db.selectFrom(walk((eb) => eb("id", "in", sql<number>`(${hits})`)).as("b")).select("b.id"))
    : byUsername;
  const rows = await db
    .selectFrom("users")
    .selectAll()
    .where("id", "in", page)
    .orderBy("username_lower")
    .limit(opts.limit + 1)
    .execute();
  const { items, nextCursor } = pageOf(rows, opts.limit, (u) => ({ t: u.username_lower, id: u.id }));
  return { users: items, nextCursor };
}
