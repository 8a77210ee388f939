import { defineService, type App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import { verifyPassword } from "../../lib/crypto";
import { releaseFilesIn } from "../../media/references";
import { fieldError, rateLimited } from "../../lib/errors";
import { retireBotsOf } from "../bots/service";
import { recheckLongPolls } from "../bots/updates";
import type { UserRow } from "../users/table";
import { inTransaction } from "../../db/transaction";

const attempts = defineService("account:delete-attempts", (app) => rateLimiter(app, "account"));

/** Password checks for deletion are limited like login attempts, per account. */
async function checkPassword(app: App, user: UserRow, password: string): Promise<void> {
  const d = await app.services
    .get(attempts)
    .check(`delete:${user.id}`, app.config["limits.loginPer10Min"], 600_000, app.clock.now());
  if (!d.allowed) throw rateLimited(d.retryAfter);
  if (!user.password_hash || !(await verifyPassword(password, user.password_hash)))
    throw fieldError("password", "is incorrect");
}

/**
 * Deletes USER's account after checking the password: the row stays as a tombstone
 * (deleted_at set, e-mail and profile scrubbed, username freed for others), every session is
 * revoked, the bots it made stop for good (their tokens refused), the avatar and cover files
 * go with the released-uploads cleanup unless used elsewhere, relations, notifications,
 * settings and stories go. Other features drop their content on the 'user:deleted' hook.
 */
export async function deleteAccount(app: App, user: UserRow, password: string): Promise<void> {
  await checkPassword(app, user, password);
  const now = app.clock.now();
  const id = user.id;
  const revoked = await inTransaction(app.storage, async ({ db: tx }) => {
    const shown = await tx
      .selectFrom("users")
      .select(["avatar_url", "cover_url", "cover_video_url"])
      .where("id", "=", id)
      .executeTakeFirst();
    if (shown) await releaseFilesIn(tx, [shown.avatar_url, shown.cover_url, shown.cover_video_url], now);
    // '-' never occurs in real usernames, so the tombstone frees the name without ever colliding
    const tombstone = `deleted-${user.cuid}`;
    await tx
      .updateTable("users")
      .set({
        deleted_at: now,
        updated_at: now,
        email: null,
        username: tombstone,
        username_lower: tombstone,
        display_name: "Deleted account",
        bio: "",
        avatar_url: null,
        cover_url: null,
        cover_video_url: null,
        password_hash: null,
        totp_secret: null,
        recovery_codes: null,
        two_factor_method: "none",
      })
      .where("id", "=", id)
      .execute();
    const sessions = await tx
      .updateTable("sessions")
      .set({ revoked_at: now })
      .where("user_id", "=", id)
      .where("revoked_at", "is", null)
      .returning("cuid")
      .execute();
    await tx
      .deleteFrom("follows")
      .where((eb) => eb.or([eb("follower_id", "=", id), eb("followee_id", "=", id)]))
      .execute();
    await tx
      .deleteFrom("blocks")
      .where((eb) => eb.or([eb("blocker_id", "=", id), eb("blocked_id", "=", id)]))
      .execute();
    await tx
      .deleteFrom("mutes")
      .where((eb) => eb.or([eb("muter_id", "=", id), eb("muted_id", "=", id)]))
      .execute();
    await tx
      .deleteFrom("notifications")
      .where((eb) => eb.or([eb("recipient_id", "=", id), eb("actor_id", "=", id)]))
      .execute();
    await tx.deleteFrom("user_settings").where("user_id", "=", id).execute();
    await retireBotsOf(tx, id, now);
    await tx
      .updateTable("stories")
      .set({ deleted_at: now })
      .where("author_id", "=", id)
      .where("deleted_at", "is", null)
      .execute();
    return sessions.map((s) => s.cuid);
  });
  // the bots' tokens are refused at once by waiting getUpdates calls too (cached resolutions see the write)
  await recheckLongPolls(app);
  for (const sessionCuid of revoked) app.hooks.publish({ type: "session:revoked", to: [id], userId: id, sessionCuid });
  await app.hooks.emit("user:deleted", { userId: id });
}
