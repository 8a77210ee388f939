import { sql } from "kysely";
import type { Db } from "../../db";
import { decodeCursor, pageOf } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { ftsQuery, searchTerms } from "./normalize";

export const likePrefix = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`) + "%";

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
  const { rows: hits } = await sql<{
    id: number;
  }>`SELECT rowid AS id FROM users_fts WHERE users_fts MATCH ${ftsQuery(terms)} LIMIT 5000`.execute(db);
  let query = db
    .selectFrom("users")
    .selectAll()
    .where("deleted_at", "is", null)
    .where("is_system", "=", 0)
    .where((eb) => {
      const byName = eb("username_lower", "like", sql<string>`${likePrefix(plain)} ESCAPE '\\'`);
      return hits.length
        ? eb.or([
            byName,
            eb(
              "id",
              "in",
              hits.map((h) => h.id),
            ),
          ])
        : byName;
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
