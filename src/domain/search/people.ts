import { sql } from "kysely";
import type { Db } from "../../db";
import { fieldError } from "../../lib/errors";
import type { UserRow } from "../users/table";
import { ftsQuery, searchTerms } from "./normalize";

/** Cursor of alphabetical lists (people, hashtags): the last key returned. */
export function decodeKeyCursor(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 1 && typeof v[0] === "string") return v[0];
  } catch {
    // falls through to the validation error
  }
  throw fieldError("cursor", "is not a valid cursor");
}

export const encodeKeyCursor = (key: string) => Buffer.from(JSON.stringify([key])).toString("base64url");

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
  const after = decodeKeyCursor(opts.cursor);
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
  if (after !== null) query = query.where("username_lower", ">", after);
  const rows = await query
    .orderBy("username_lower")
    .limit(opts.limit + 1)
    .execute();
  const users = rows.slice(0, opts.limit);
  return {
    users,
    nextCursor: rows.length > opts.limit ? encodeKeyCursor(users[users.length - 1]!.username_lower) : null,
  };
}
