import type { Db } from "../../db";
import { isBlockedEitherWay, isFollowing } from "../relations/service";
import type { WhoCanMessage } from "./table";
import { isLanguage, type Language } from "../../locales/languages";

export interface AccountSettings {
  whoCanMessage: WhoCanMessage;
  /** whether a bot may open a chat with the account by writing first (whoCanMessage still applies) */
  botsMayWriteFirst: boolean;
  /** the language the server writes to the person in (users.language); null: the instance's default */
  language: Language | null;
}

export const DEFAULT_SETTINGS: AccountSettings = { whoCanMessage: "everyone", botsMayWriteFirst: true, language: null };

/** The account's settings, defaults filled in. */
export async function getSettings(db: Db, userId: number): Promise<AccountSettings> {
  const row = await db
    .selectFrom("users")
    .leftJoin("user_settings", "user_settings.user_id", "users.id")
    .select(["user_settings.who_can_message", "user_settings.bots_may_write_first", "users.language"])
    .where("users.id", "=", userId)
    .executeTakeFirst();
  return {
    whoCanMessage: row?.who_can_message ?? DEFAULT_SETTINGS.whoCanMessage,
    botsMayWriteFirst:
      row?.bots_may_write_first === null || row?.bots_may_write_first === undefined
        ? DEFAULT_SETTINGS.botsMayWriteFirst
        : row.bots_may_write_first === 1,
    language: isLanguage(row?.language) ? row.language : null,
  };
}

/**
 * Stores the changed settings (absent fields keep their value) and returns the result. DB is
 * the caller's transaction: the language is the account's, the rest its settings row.
 */
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
  if (patch.language !== undefined)
    await db.updateTable("users").set({ language: patch.language, updated_at: now }).where("id", "=", userId).execute();
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
