import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import type { UserRow } from "./table";
import { findUserByUsername } from "./service";

/** Usernames people may not register: they would pass for the instance itself. */
export const RESERVED_USERNAMES = new Set([
  "system",
  "admin",
  "administrator",
  "root",
  "support",
  "security",
  "moderator",
  "help",
  "official",
]);

/**
 * The instance's own account (users.is_system = 1), made on first use. It has no e-mail
 * and no password, cannot sign in, and sends system messages such as sign-in codes.
 */
export async function ensureSystemAccount(db: Db, now: number): Promise<UserRow> {
  const existing = await db.selectFrom("users").selectAll().where("is_system", "=", 1).orderBy("id").executeTakeFirst();
  if (existing) return existing;
  // "system" is reserved for registration, but the CLI may have given it to a person
  const username = (await findUserByUsername(db, "system")) ? `system_${newCuid().slice(-6)}` : "system";
  return db
    .insertInto("users")
    .values({
      cuid: newCuid(),
      email: null,
      username,
      username_lower: username.toLowerCase(),
      display_name: "System",
      password_hash: null,
      is_system: 1,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
