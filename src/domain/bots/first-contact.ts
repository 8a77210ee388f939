import { defineService, type App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import type { LimitDecision } from "../../lib/rate-limit";

const HOUR_MS = 3_600_000;
const firstContactLimiter = defineService("bots:first-contact-limiter", (app) => rateLimiter(app, "bot-first-contact"));

/**
 * Counts one chat the bot BOTUSERID opens with a person by writing first against its hourly
 * budget (config limits.botNewChatsPerHour): account ids are sequential, so without it one bot
 * could write to every person of the instance. Chats a person opened cost nothing.
 */
export async function consumeNewChatBudget(app: App, botUserId: number): Promise<LimitDecision> {
  return app.services
    .get(firstContactLimiter)
    .check(`bot:${botUserId}`, app.config["limits.botNewChatsPerHour"], HOUR_MS, app.clock.now());
}
