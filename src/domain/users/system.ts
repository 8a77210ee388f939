import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import type { UserRow } from "./table";

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

/** Usernames tried for the instance's own account, in order (a person may hold "system"). */
const SYSTEM_USERNAMES = ["system", "system_account", "instance_system"];

/**
 * The instance's own account (users.is_system = 1), made on first use. It has no e-mail
 * and no password, cannot sign in, and sends system messages such as sign-in codes.
 */
export async function ensureSystemAccount(db: Db, now: number): Promise<UserRow> {
  const found = await findSystemAccount(db);
  if (found) return found;
  // "system" is reserved for registration, but the CLI may have given it to a person
  const taken = new Set(
    (
      await db.selectFrom("users").select("username_lower").where("username_lower", "in", SYSTEM_USERNAMES).execute()
    ).map((r) => r.username_lower),
  );
  const username = SYSTEM_USERNAMES.find((u) => !taken.has(u)) ?? `system_${newCuid().slice(-8)}`;
  try {
    return await db
      .insertInto("users")
      .values({
        cuid: newCuid(),
        email: null,
        username,
        username_lower: username,
        display_name: "System",
        password_hash: null,
        is_system: 1,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // made at the same moment by another request
    const again = await findSystemAccount(db);
    if (again) return again;
    throw err;
  }
}

function findSystemAccount(db: Db): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("is_system", "=", 1)
    .where("deleted_at", "is", null)
    .orderBy("id")
    .executeTakeFirst();
}
