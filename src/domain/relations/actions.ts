import { defineService, type App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import { AppError, fieldError, rateLimited } from "../../lib/errors";
import { notify, removeNotificationsBetween, withdrawNotification } from "../notifications/service";
import { followCounts, hasBlocked, hasMuted, isFollowing, setBlocked, setFollowing, setMuted } from "./service";
import { inTransaction } from "../../db/transaction";

const HOUR_MS = 3_600_000;
const followLimiter = defineService("relations:follow-limiter", (app) => rateLimiter(app, "relations"));

async function checkFollowLimit(app: App, userId: number): Promise<void> {
  const d = await app.services
    .get(followLimiter)
    .check(`follow:${userId}`, app.config["limits.followsPerHour"], HOUR_MS, app.clock.now());
  if (!d.allowed) throw rateLimited(d.retryAfter);
}

function refuseSelf(actorId: number, targetId: number, message: string): void {
  if (actorId === targetId) throw fieldError("username", message);
}

/**
 * Follow toggle: follows when not following, unfollows otherwise. Rate limited per account;
 * refused across a block; a new follow notifies the followee.
 */
export async function toggleFollow(app: App, followerId: number, followeeId: number) {
  refuseSelf(followerId, followeeId, "you cannot follow yourself");
  await checkFollowLimit(app, followerId);
  const now = app.clock.now();
  const following = !(await isFollowing(app.db, followerId, followeeId));
  if (following) {
    if (await hasBlocked(app.db, followerId, followeeId))
      throw new AppError(403, "FORBIDDEN", "Unblock this account to follow it");
    if (await hasBlocked(app.db, followeeId, followerId)) throw new AppError(404, "NOT_FOUND", "User not found");
  }
  await setFollowing(app.db, now, followerId, followeeId, following);
  if (following) await notify(app, { recipientId: followeeId, actorId: followerId, type: "follow" });
  else await withdrawNotification(app.db, { recipientId: followeeId, actorId: followerId, type: "follow" });
  return { following, followersCount: (await followCounts(app.db, followeeId)).followers };
}

/** Block toggle; blocking removes follows and notifications both ways, in one transaction. */
export async function toggleBlock(app: App, blockerId: number, blockedId: number) {
  refuseSelf(blockerId, blockedId, "you cannot block yourself");
  const blocked = !(await hasBlocked(app.db, blockerId, blockedId));
  await inTransaction(app.storage, async ({ db: tx }) => {
    await setBlocked(tx, app.clock.now(), blockerId, blockedId, blocked);
    if (blocked) await removeNotificationsBetween(tx, blockerId, blockedId);
  });
  return { blocked };
}

/** Mute toggle: the muted account leaves the muter's feed only. */
export async function toggleMute(app: App, muterId: number, mutedId: number) {
  refuseSelf(muterId, mutedId, "you cannot mute yourself");
  const muted = !(await hasMuted(app.db, muterId, mutedId));
  await setMuted(app.db, app.clock.now(), muterId, mutedId, muted);
  return { muted };
}
