import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from "kysely";
import type { Database, Db } from "../../db";
import { decodeCursor, pageOf } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { forEngine } from "../../db/engine";
import { ShapedQuery } from "../../db/compiled";
import { literalLimit } from "../posts/keyset";
import { ftsQuery, searchTerms, tsqueryText } from "./normalize";
import { notHiddenFrom } from "../relations/service";

/** A LIKE pattern for "starts with S"; control characters (which no name has, and PostgreSQL's text cannot hold) become spaces. */
const likePrefix = (s: string) => s.replace(/\p{Cc}/gu, " ").replace(/[\\%_]/g, (c) => `\\${c}`) + "%";

/** What a prefix condition (startsWith) compares with: the values, so a statement with one is compiled once. */
export interface PrefixBounds {
  /** the prefix itself: the range's start */
  from: string;
  /** every string that starts with the prefix sorts before it */
  to: string;
  /** the LIKE pattern of the prefix */
  like: string;
}

export const prefixBounds = (prefix: string): PrefixBounds => ({
  from: prefix,
  to: prefix + "\u{10FFFF}",
  like: likePrefix(prefix),
});

/**
 * COLUMN starts with the prefix of BOUNDS, through COLUMN's index: on SQLite a range of the
 * (binary) index, as its LIKE is case-insensitive and uses no index; on PostgreSQL a LIKE, which
 * the text_pattern_ops index serves (migration 20261129040100_prefix_search) whatever the collation.
 */
export function startsWith(db: Db, column: string, bounds: PrefixBounds): RawBuilder<SqlBool> {
  const ref = sql.ref(column);
  return forEngine(db, {
    sqlite: () => sql<SqlBool>`(${ref} >= ${bounds.from} AND ${ref} < ${bounds.to})`,
    postgres: () => sql<SqlBool>`${ref} LIKE ${bounds.like} ESCAPE '\\'`,
  })();
}

/**
 * Accounts the name index finds, at most this many a search: the ones a word of a name starts
 * with the typed word. Sorting them by username costs a row each, so a word that thousands of
 * names share reads the first thousand the index holds (typing more narrows it).
 */
const NAME_HITS = 1000;

/**
 * The index query of TERMS' words (the last one a prefix), as the engine's name index takes it;
 * null when no word has a token (PostgreSQL), so nothing is found through it.
 */
const nameWords = {
  sqlite: (terms: string[]): string | null => ftsQuery(terms),
  postgres: (terms: string[]): string | null => tsqueryText(terms),
};

/** A query of the ids of accounts any word of whose username or display name starts with the index query WORDS' (NAME_HITS at most). */
const nameWordHits = {
  sqlite: (words: string): RawBuilder<{ id: number }> =>
    sql`SELECT rowid AS id FROM users_fts WHERE users_fts MATCH ${words} LIMIT ${sql.lit(NAME_HITS)}`,
  // the expression of the users_fts index (migration 20261122000300_posts), so it is used
  postgres: (words: string): RawBuilder<{ id: number }> =>
    sql`SELECT id FROM users
      WHERE to_tsvector('simple'::regconfig, social_unaccent(username || ' ' || display_name))
        @@ to_tsquery('simple'::regconfig, social_unaccent(${words}))
      LIMIT ${sql.lit(NAME_HITS)}`,
};

type PeopleShape = { cursor: boolean; limit: number; forViewer: boolean; words: boolean };
type PeopleValues = PrefixBounds & { words: string; after: string; viewer: number };

/**
 * A page of people search, compiled once per shape: two walks in username order, each stopping
 * at a page: the username index's range, and the accounts the name index found; a single
 * statement with both as one OR condition read every account either matched (a common first
 * name, a prefix every username shares) to sort them.
 */
const peoplePages = new ShapedQuery(
  (db: Db, v: PeopleValues, shape: PeopleShape) => {
    const walk = (matches: (eb: ExpressionBuilder<Database, "users">) => Expression<SqlBool>) =>
      db
        .selectFrom("users")
        .select("id")
        .where("deleted_at", "is", null)
        .where("is_system", "=", 0)
        .where(matches)
        .$if(shape.forViewer, (q) => q.where((eb) => notHiddenFrom(eb, "users.id", v.viewer, false)))
        // usernames are unique: the name alone places the cursor
        .$if(shape.cursor, (q) => q.where("username_lower", ">", v.after))
        .orderBy("username_lower")
        .limit(literalLimit(shape.limit + 1));
    const byUsername = walk(() => startsWith(db, "username_lower", v));
    const page = shape.words
      ? db
          .selectFrom(byUsername.as("a"))
          .select("a.id")
          .unionAll(
            db
              .selectFrom(walk((eb) => eb("id", "in", sql<number>`(${forEngine(db, nameWordHits)(v.words)})`)).as("b"))
              .select("b.id"),
          )
      : byUsername;
    return db
      .selectFrom("users")
      .selectAll()
      .where("id", "in", page)
      .orderBy("username_lower")
      .limit(literalLimit(shape.limit + 1));
  },
  (s) => `${s.cursor ? 1 : 0}:${s.limit}:${s.forViewer ? 1 : 0}:${s.words ? 1 : 0}`,
);

/**
 * People whose username starts with Q, or any word of whose username or display name
 * starts with Q's words (any script, case and diacritics ignored). Alphabetical by
 * username; deleted and system accounts are left out, and with VIEWER those blocked either way
 * with the viewer (null: everyone, as the admin area searches).
 */
export async function searchPeople(
  db: Db,
  q: string,
  opts: { viewer: number | null; cursor: string | null; limit: number },
): Promise<{ users: UserRow[]; nextCursor: string | null }> {
  const after = decodeCursor(opts.cursor, "cursor", "name");
  const plain = q.trim().replace(/^@/, "").toLowerCase();
  const terms = searchTerms(plain);
  if (!plain || !terms.length) return { users: [], nextCursor: null };
  const words = forEngine(db, nameWords)(terms);
  const rows = await peoplePages.execute(
    db,
    { cursor: after !== null, limit: opts.limit, forViewer: opts.viewer !== null, words: words !== null },
    { ...prefixBounds(plain), words: words ?? "", after: after?.t ?? "", viewer: opts.viewer ?? 0 },
  );
  const { items, nextCursor } = pageOf(rows, opts.limit, (u) => ({ t: u.username_lower, id: u.id }));
  return { users: items, nextCursor };
}
