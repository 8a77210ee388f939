import type { Db } from "../../db";
import { isBlockedEitherWay, isFollowing } from "../relations/service";
import type { WhoCanMessage } from "./table";

export interface AccountSettings {
  whoCanMessage: WhoCanMessage;
}

export const DEFAULT_SETTINGS: AccountSettings = { whoCanMessage: "everyone" };

/** The account's settings, defaults filled in. */
export async function getSettings(db: Db, userId: number): Promise<AccountSettings> {
  const row = await db
    .selectFrom("user_settings")
    .select("who_can_message")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row ? { whoCanMessage: row.who_can_message } : { ...DEFAULT_SETTINGS };
}

/** Stores the changed settings (absent fields keep their value) and returns the result. */
export async function updateSettings(
  db: Db,
  now: number,
  userId: number,
  patch: Partial<AccountSettings>,
): Promise<AccountSettings> {
  const next = { ...(await getSettings(db, userId)), ...patch };
  await db
    .insertInto("user_settings")
    .values({ user_id: userId, who_can_message: next.whoCanMessage, updated_at: now })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ who_can_message: next.whoCanMessage, updated_at: now }))
    .execute();
  return next;
}

/** Who may open a chat with / write to this account. */
export async function whoCanMessage(db: Db, userId: number): Promise<WhoCanMessage> {
  return (await getSettings(db, userId)).whoCanMessage;
}

/**
 * Whether sender may message recipient: never across a block; otherwise by the recipient's
 * setting, where "followed" means the recipient follows the sender. Writing to oneself is allowed.
 */
export async function canMessage(db: Db, senderId: number, recipientId: number): Promise<boolean> {
  if (senderId === recipientId) return true;
  if (await isBlockedEitherWay(db, senderId, recipientId)) return false;
  const who = await whoCanMessage(db, recipientId);
  if (who === "everyone") return true;
  if (who === "nobody") return false;
  return isFollowing(db, recipientId, senderId);
}
