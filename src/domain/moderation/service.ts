import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { rateLimiter } from "../../cluster/counters";
import { AppError, rateLimited } from "../../lib/errors";
import { toIso } from "../../lib/clock";
import type { UserRow } from "../users/table";

/**
 * Rules every piece of published content passes: the posting block an admin can set,
 * the per-account hourly budgets, and the instance's word list.
 */
export type ContentAction = "post" | "comment";

const HOUR_MS = 3_600_000;
/** Longest posting block an admin can set: ten years, in minutes. */
export const MAX_POSTING_BLOCK_MINUTES = 525_600 * 10;
const contentLimiter = defineService("moderation:content-limiter", (app) => rateLimiter(app, "content"));

/** Fails with POSTING_TEMPORARILY_BLOCKED while an admin's posting block on the account lasts. */
export function assertPostingAllowed(app: App, user: UserRow): void {
  const until = user.posting_blocked_until;
  const now = app.clock.now();
  if (until !== null && until > now) {
    throw new AppError(
      403,
      "POSTING_TEMPORARILY_BLOCKED",
      `Posting is blocked until ${toIso(until)}`,
      {
        blockedUntil: toIso(until),
      },
      { retryAfter: Math.ceil((until - now) / 1000) },
    );
  }
}

/** Counts one new post or comment against the account's hourly budget; 429 RATE_LIMITED past it. */
export async function consumePublishBudget(app: App, userId: number, action: ContentAction): Promise<void> {
  const limit = action === "post" ? app.config["limits.postsPerHour"] : app.config["limits.commentsPerHour"];
  const d = await app.services.get(contentLimiter).check(`${action}:${userId}`, limit, HOUR_MS, app.clock.now());
  if (!d.allowed) throw rateLimited(d.retryAfter);
}

/** The configured word list, lower-cased, without empty entries. */
export function blockedWords(app: App): string[] {
  return app.config["moderation.blockedWords"]
    .split(",")
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w.length > 0);
}

/**
 * CONTENT_REJECTED (422) when TEXT contains a listed word as a whole word (case-insensitive,
 * any script). FIELD names the offending request field.
 */
export function assertContentAllowed(app: App, field: string, text: string): void {
  const words = blockedWords(app);
  if (words.length === 0 || text.length === 0) return;
  const lower = text.toLowerCase();
  for (const word of words) {
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}($|[^\\p{L}\\p{N}_])`, "u").test(lower)) {
      throw new AppError(422, "CONTENT_REJECTED", "The content contains words not allowed on this instance", {
        fieldErrors: { [field]: ["contains a word not allowed on this instance"] },
      });
    }
  }
}

/** Blocks posting for an account until UNTIL (ms), or lifts the block with null. */
export async function setPostingBlockedUntil(db: Db, now: number, userId: number, until: number | null): Promise<void> {
  await db
    .updateTable("users")
    .set({ posting_blocked_until: until, updated_at: now })
    .where("id", "=", userId)
    .execute();
}
