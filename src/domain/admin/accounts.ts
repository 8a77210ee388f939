import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { AppError, fieldError } from "../../lib/errors";
import { revokeSessionsAndNotify } from "../sessions/revoke";
import { setDisabled } from "../users/service";
import type { UserRow } from "../users/table";

/**
 * Disables an account and signs it out everywhere (its open streams close), or enables it
 * again. A disabled account is refused at sign-in and on every request (ACCOUNT_DISABLED).
 */
export async function setAccountDisabled(
  app: App,
  userId: number,
  disabled: boolean,
): Promise<{ sessionsRevoked: number }> {
  await setDisabled(app.db, app.clock.now(), userId, disabled);
  return { sessionsRevoked: disabled ? await revokeSessionsAndNotify(app, userId, null) : 0 };
}

/**
 * Grants or revokes USER's admin flag; the next request of the account sees it. Bots and the
 * system account are never administrators. The last administrator who can sign in (not
 * disabled, not deleted) cannot be revoked: nobody could open the admin area or grant it again
 * but the CLI. Answers whether the flag changed.
 */
export async function setAccountAdmin(app: App, user: UserRow, admin: boolean): Promise<{ changed: boolean }> {
  if (admin && (user.is_bot === 1 || user.is_system === 1))
    throw fieldError("username", "is a bot or the system account: only people can be administrators");
  return inTransaction(app.storage, async ({ db }) => {
    const now = app.clock.now();
    let usable = db
      .selectFrom("users")
      .select("id")
      .where("is_admin", "=", 1)
      .where("deleted_at", "is", null)
      .where("disabled_at", "is", null);
    // PostgreSQL: two revokes at once each see the other's admin; the row locks order them
    if (app.storage.engine === "postgres") usable = usable.forUpdate();
    const current = await db
      .selectFrom("users")
      .select(["is_admin", "disabled_at"])
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    if ((current.is_admin === 1) === admin) return { changed: false };
    // a disabled administrator's flag may go: it opens nothing
    if (!admin && current.disabled_at === null) {
      const others = (await usable.execute()).filter((r) => r.id !== user.id);
      if (others.length === 0)
        throw new AppError(
          400,
          "VALIDATION_ERROR",
          `${user.username} is the last administrator: grant admin to another account first`,
        );
    }
    await db
      .updateTable("users")
      .set({ is_admin: admin ? 1 : 0, updated_at: now })
      .where("id", "=", user.id)
      .execute();
    return { changed: true };
  });
}

/** How many accounts hold the admin flag (people who can sign in or not). */
export async function countAdmins(db: Db): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("is_admin", "=", 1)
    .where("deleted_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
