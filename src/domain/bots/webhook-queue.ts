import type { Db } from "../../db";
import type { BotUpdateRow } from "./table";

/**
 * The update queue as the webhook worker (src/botapi/webhooks.ts) walks it: per bot, one
 * update at a time, oldest first; a delivered update is removed, a failed one waits.
 */

/**
 * Bots with a usable webhook and updates waiting, with when their oldest pending update is
 * due: it decides for its bot, since order is kept and it goes first.
 */
export function webhookBacklog(db: Db): Promise<Array<{ botId: number; botUserId: number; dueAt: number }>> {
  return db
    .selectFrom("bot_updates")
    .innerJoin("bots", "bots.id", "bot_updates.bot_id")
    .select(["bots.user_id as botUserId", "bot_updates.bot_id as botId", "bot_updates.next_attempt_at as dueAt"])
    .where("bots.webhook_url", "is not", null)
    .where("bots.disabled_at", "is", null)
    .where("bots.blocked_at", "is", null)
    .where("bot_updates.id", "in", (eb) =>
      eb
        .selectFrom("bot_updates")
        .select((e) => e.fn.min("id").as("id"))
        .where("delivered_at", "is", null)
        .groupBy("bot_id"),
    )
    .execute();
}

/** BOT's oldest pending update: the next one its webhook gets. */
export const oldestPendingUpdate = (db: Db, botId: number): Promise<BotUpdateRow | undefined> =>
  db
    .selectFrom("bot_updates")
    .selectAll()
    .where("bot_id", "=", botId)
    .where("delivered_at", "is", null)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();

/** Removes update ID: the bot's webhook took it. */
export async function removeDeliveredUpdate(db: Db, id: number): Promise<void> {
  await db.deleteFrom("bot_updates").where("id", "=", id).execute();
}

/** Keeps update ID for another attempt at NEXTAT, its failed ATTEMPTS counted. */
export async function deferUpdate(db: Db, id: number, attempts: number, nextAt: number): Promise<void> {
  await db.updateTable("bot_updates").set({ attempts, next_attempt_at: nextAt }).where("id", "=", id).execute();
}
