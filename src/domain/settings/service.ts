import type { Db } from "../../db";
import { isBlockedEitherWay, isFollowing } from "../relations/service";
import type { WhoCanMessage } from "./table";

export interface AccountSettings {
  whoCanMessage: WhoCanMessage;
  /** whether a bot may open a chat with the account by writing first (whoCanMessage still applies) */
  botsMayWriteFirst: boolean;
}

export const DEFAULT_SETTINGS: AccountSettings = { whoCanMessage: "everyone", botsMayWriteFirst: true };

/** The account's settings, defaults filled in. */
export async function getSettings(db: Db, userId: number): Promise<AccountSettings> {
  const row = await db
    .selectFrom("user_settings")
    .select(["who_can_message", "bots_may_write_first"])
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row
    ? { whoCanMessage: row.who_can_message, botsMayWriteFirst: row.bots_may_write_first === 1 }
    : { ...DEFAULT_SETTINGS };
}

/** Stores the changed settings (absent fields keep their value) and returns the result. */
export async function updateSettings(
  db: Db,
  now: number,
  userId: number,
  patch: Partial<AccountSettings>,
): Promise<AccountSettings> {
  const next = { ...(await getSettings(db, userId)), ...patch };
  const values = {
    who_can_message: next.whoCanMessage,
    bots_may_write_first: next.botsMayWriteFirst ? 1 : 0,
    updated_at: now,
  };
  await db
    .insertInto("user_settings")
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(values))
    .execute();
  return next;
}

/**
 * Whether sender may message recipient: never across a block; otherwise by the recipient's
 * setting, where "followed" means the recipient follows the sender. Writing to oneself is allowed.
 */
export async function canMessage(db: Db, senderId: number, recipientId: number): Promise<boolean> {
  if (senderId === recipientId) return true;
  if (await isBlockedEitherWay(db, senderId, recipientId)) return false;
  return allowedBy(db, (await getSettings(db, recipientId)).whoCanMessage, senderId, recipientId);
}

async function allowedBy(db: Db, who: WhoCanMessage, senderId: number, recipientId: number): Promise<boolean> {
  if (who === "everyone") return true;
  if (who === "nobody") return false;
  return isFollowing(db, recipientId, senderId);
}

/**
 * Whether the bot BOTUSERID may open a chat with the person RECIPIENTID by writing first:
 * the person lets bots write first and their "who may message me" admits the bot ("followed":
 * they follow it). "blocked" when either blocked the other.
 */
export async function botMayWriteFirst(
  db: Db,
  botUserId: number,
  recipientId: number,
): Promise<"allowed" | "refused" | "blocked"> {
  if (await isBlockedEitherWay(db, botUserId, recipientId)) return "blocked";
  const settings = await getSettings(db, recipientId);
  if (!settings.botsMayWriteFirst) return "refused";
  return (await allowedBy(db, settings.whoCanMessage, botUserId, recipientId)) ? "allowed" : "refused";
}
