import type { Db } from "../../db";
import { notFound } from "../../lib/errors";
import { pageOf, type Cursor } from "../../lib/paging";
import { findUserByUsername } from "../users/service";
import type { UserRow } from "../users/table";
import { blockedEitherWayIds, hasBlocked, hasMuted, isFollowing } from "../relations/service";
import { beforeKey } from "../posts/keyset";

/**
 * Resolves USERNAME for VIEWER: an account that is deleted, or that blocked the viewer,
 * does not exist for them (NOT_FOUND). The viewer may still see someone they blocked
 * (to unblock them).
 */
export async function requireVisibleUser(db: Db, viewerId: number, username: string): Promise<UserRow> {
  const user = await findUserByUsername(db, username);
  if (!user || user.is_system === 1 || (user.id !== viewerId && (await hasBlocked(db, user.id, viewerId)))) {
    throw notFound(`User ${username} not found`);
  }
  return user;
}

/** Number of posts (reposts included) by an account. */
export async function countPosts(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("author_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A person's profile as VIEWER sees it: counts and the relations between them. */
export interface ProfileView {
  user: UserRow;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  isFollowing: boolean;
  followsYou: boolean;
  isBlocked: boolean;
  isMuted: boolean;
}

/** Loads USER's profile as VIEWER sees it (follow counts are USER's counter columns). */
export async function loadProfile(db: Db, viewerId: number, user: UserRow): Promise<ProfileView> {
  const self = viewerId === user.id;
  const [postsCount, isFollowingThem, followsYou, isBlocked, isMuted] = await Promise.all([
    countPosts(db, user.id),
    self ? false : isFollowing(db, viewerId, user.id),
    self ? false : isFollowing(db, user.id, viewerId),
    self ? false : hasBlocked(db, viewerId, user.id),
    self ? false : hasMuted(db, viewerId, user.id),
  ]);
  return {
    user,
    followersCount: user.followers_count,
    followingCount: user.following_count,
    postsCount,
    isFollowing: isFollowingThem,
    followsYou,
    isBlocked,
    isMuted,
  };
}

/**
 * One page of USER's followers (direction "followers") or of the accounts USER follows
 * ("following"), newest follow first. Deleted accounts and accounts blocked either way
 * with the viewer are left out.
 */
export async function listFollowPage(
  db: Db,
  viewerId: number,
  userId: number,
  direction: "followers" | "following",
  opts: { cursor: Cursor | null; limit: number },
) {
  const [mine, other] =
    direction === "followers" ? (["followee_id", "follower_id"] as const) : (["follower_id", "followee_id"] as const);
  const hidden = await blockedEitherWayIds(db, viewerId);
  let q = db
    .selectFrom("follows")
    .innerJoin("users", "users.id", `follows.${other}`)
    .selectAll("users")
    .select(["follows.id as follow_id", "follows.created_at as followed_at"])
    .where(`follows.${mine}`, "=", userId)
    .where("users.deleted_at", "is", null);
  if (hidden.length) q = q.where("users.id", "not in", hidden);
  if (opts.cursor) q = q.where(beforeKey("follows.created_at", "follows.id", opts.cursor));
  const rows = await q
    .orderBy("follows.created_at", "desc")
    .orderBy("follows.id", "desc")
    .limit(opts.limit + 1)
    .execute();
  const page = pageOf(rows, opts.limit, (r) => ({ t: r.followed_at, id: r.follow_id }));
  const ids = page.items.map((r) => r.id);
  const viewerFollows = ids.length
    ? new Set(
        (
          await db
            .selectFrom("follows")
            .select("followee_id")
            .where("follower_id", "=", viewerId)
            .where("followee_id", "in", ids)
            .execute()
        ).map((r) => r.followee_id),
      )
    : new Set<number>();
  return {
    users: page.items.map((u) => ({ user: u as UserRow, isFollowing: viewerFollows.has(u.id) })),
    nextCursor: page.nextCursor,
  };
}
