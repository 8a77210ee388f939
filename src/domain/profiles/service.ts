import { sql } from "kysely";
import type { Database, Db } from "../../db";
import { precompiled, ShapedQuery } from "../../db/compiled";
import { notFound } from "../../lib/errors";
import { pageOf, type Cursor } from "../../lib/paging";
import { usernameKey } from "../users/service";
import type { UserRow } from "../users/table";
import { notHiddenFrom } from "../relations/service";
import { beforeKey, literalLimit } from "../posts/keyset";
import { defineService, type App } from "../../app";
import { VersionedCache } from "../../cache/by-version";

/**
 * Whether a row of TABLE (a follow, block or mute: FROM did it to TO) links the outer query's
 * account `users` and VIEWER in the direction given (an EXISTS for its select list: one probe
 * of the pair's unique index).
 */
function relation<T extends "follows" | "blocks" | "mutes">(
  table: T,
  from: keyof Database[T] & string,
  to: keyof Database[T] & string,
  direction: "viewer→them" | "them→viewer",
  viewer: number,
) {
  const [viewerSide, theirSide] = direction === "viewer→them" ? [from, to] : [to, from];
  return sql<boolean>`exists (select 1 from ${sql.table(table)} as r where ${sql.ref(`r.${viewerSide}`)} = ${viewer} and ${sql.ref(`r.${theirSide}`)} = ${sql.ref("users.id")})`;
}

const visibleUserQuery = precompiled((db, v: { viewer: number; username: string }) =>
  db
    .selectFrom("users")
    .selectAll("users")
    .select(() => relation("blocks", "blocker_id", "blocked_id", "them→viewer", v.viewer).as("blocked_viewer"))
    .where("users.username_lower", "=", v.username)
    .where("users.deleted_at", "is", null),
);

/** Not found for the viewer: no such account, the system account, or one that blocked the viewer. */
const hiddenFrom = (viewerId: number, u: { id: number; is_system: number; blocked_viewer: unknown } | undefined) =>
  !u || u.is_system === 1 || (u.id !== viewerId && Number(u.blocked_viewer) === 1);

/**
 * Resolves USERNAME for VIEWER (one statement): an account that is deleted, or that blocked
 * the viewer, does not exist for them (NOT_FOUND). The viewer may still see someone they
 * blocked (to unblock them).
 */
export async function requireVisibleUser(db: Db, viewerId: number, username: string): Promise<UserRow> {
  const [found] = await visibleUserQuery(db, { viewer: viewerId, username: usernameKey(username) });
  if (hiddenFrom(viewerId, found)) throw notFound(`User ${username} not found`);
  const { blocked_viewer: _, ...user } = found!;
  return user;
}

/**
 * What a profile shows of its account apart from counters and relations: the columns whose every
 * change raises users.profile_version (a trigger), so they are kept by (id, version).
 */
export type ProfileUser = Pick<
  UserRow,
  | "id"
  | "cuid"
  | "username"
  | "display_name"
  | "avatar_url"
  | "is_bot"
  | "bio"
  | "cover_url"
  | "cover_video_url"
  | "created_at"
>;

/** A person's profile as VIEWER sees it: counts and the relations between them. */
export interface ProfileView {
  /** shared by every read of the account at its profile version: never changed in place */
  user: Readonly<ProfileUser>;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  isFollowing: boolean;
  followsYou: boolean;
  isBlocked: boolean;
  isMuted: boolean;
}

/** Most profiles' shown columns kept per App (≈ 0.5 KB each): the oldest kept goes first. */
const MAX_CACHED_PROFILES = 5_000;

const cachedProfilesService = defineService(
  "profiles:kept",
  () => new VersionedCache<Readonly<ProfileUser>>(MAX_CACHED_PROFILES),
);

/**
 * The profiles' shown columns APP keeps, by account id and users.profile_version: the version is
 * raised by a trigger on every change of them, whoever makes it (this process, the CLI, another
 * node), so a kept value whose version a read does not name is simply not used.
 */
export const cachedProfilesOf = (app: App): VersionedCache<Readonly<ProfileUser>> =>
  app.services.get(cachedProfilesService);

/**
 * What a profile read needs besides its kept columns, in one statement: the account's id, profile
 * version and whether it is the system account, its follow and post counters (columns kept on
 * write) and the relations with the viewer (index probes), found by username (deleted accounts
 * are not) or by id.
 */
const profileRefs = new ShapedQuery(
  (db: Db, v: { viewer: number; id: number; username: string }, by: "id" | "username") => {
    const q = db
      .selectFrom("users")
      .select([
        "users.id",
        "users.profile_version",
        "users.is_system",
        "users.followers_count",
        "users.following_count",
        "users.posts_count",
      ])
      .select(() => [
        relation("follows", "follower_id", "followee_id", "viewer→them", v.viewer).as("is_following"),
        relation("follows", "follower_id", "followee_id", "them→viewer", v.viewer).as("follows_you"),
        relation("blocks", "blocker_id", "blocked_id", "viewer→them", v.viewer).as("is_blocked"),
        relation("blocks", "blocker_id", "blocked_id", "them→viewer", v.viewer).as("blocked_viewer"),
        relation("mutes", "muter_id", "muted_id", "viewer→them", v.viewer).as("is_muted"),
      ]);
    return by === "id"
      ? q.where("users.id", "=", v.id)
      : q.where("users.username_lower", "=", v.username).where("users.deleted_at", "is", null);
  },
  (by) => by,
);

/** The shown columns of a profile not kept at the version its refs named. */
const profileUserQuery = precompiled((db, v: { id: number }) =>
  db
    .selectFrom("users")
    .select([
      "id",
      "profile_version",
      "cuid",
      "username",
      "display_name",
      "avatar_url",
      "is_bot",
      "bio",
      "cover_url",
      "cover_video_url",
      "created_at",
    ])
    .where("id", "=", v.id),
);

type ProfileRefs = Awaited<ReturnType<typeof profileRefs.execute>>[number];

// SQLite answers EXISTS with 0/1, PostgreSQL with false/true
const yes = (v: unknown) => Number(v) === 1;

/** The view of the account REFS found, its shown columns USER. */
function viewOf(user: Readonly<ProfileUser>, viewerId: number, r: ProfileRefs): ProfileView {
  const self = viewerId === r.id;
  return {
    user,
    followersCount: Number(r.followers_count),
    followingCount: Number(r.following_count),
    postsCount: Number(r.posts_count ?? 0),
    isFollowing: !self && yes(r.is_following),
    followsYou: !self && yes(r.follows_you),
    isBlocked: !self && yes(r.is_blocked),
    isMuted: !self && yes(r.is_muted),
  };
}

/**
 * The profile of the account REFS found: its shown columns as KEPT holds them at their version
 * (answered now, without a promise), else read (and kept).
 */
function profileOf(
  db: Db,
  kept: VersionedCache<Readonly<ProfileUser>>,
  viewerId: number,
  r: ProfileRefs,
): ProfileView | Promise<ProfileView> {
  const user = kept.get(r.id, Number(r.profile_version));
  if (user) return viewOf(user, viewerId, r);
  return profileUserQuery(db, { id: r.id }).then(([u]) => {
    if (!u) throw notFound("User not found");
    const { profile_version: version, ...shown } = u;
    const read = Object.freeze(shown);
    // kept by the version this read saw (newer than the refs' when the account changed meanwhile)
    kept.keep(u.id, Number(version), read);
    return viewOf(read, viewerId, r);
  });
}

/** USER's profile as VIEWER sees it: one statement when KEPT holds its shown columns, else two. */
export async function loadProfile(
  db: Db,
  kept: VersionedCache<Readonly<ProfileUser>>,
  viewerId: number,
  user: Pick<UserRow, "id">,
): Promise<ProfileView> {
  const [row] = await profileRefs.execute(db, "id", { viewer: viewerId, id: user.id, username: "" });
  if (!row) throw notFound("User not found");
  return profileOf(db, kept, viewerId, row);
}

/**
 * The profile of USERNAME as VIEWER sees it, in one statement when KEPT holds its shown columns
 * (else two); NOT_FOUND as requireVisibleUser says (deleted, the system account, or blocked the
 * viewer). Answered now, without a promise (a NOT_FOUND thrown now), where the statement runs
 * straight on SQLite and the shown columns are kept (ShapedQuery.withRows).
 */
export function loadProfileByUsername(
  db: Db,
  kept: VersionedCache<Readonly<ProfileUser>>,
  viewerId: number,
  username: string,
): ProfileView | Promise<ProfileView> {
  return profileRefs.withRows(db, "username", { viewer: viewerId, id: 0, username: usernameKey(username) }, ([row]) => {
    if (hiddenFrom(viewerId, row)) throw notFound(`User ${username} not found`);
    return profileOf(db, kept, viewerId, row!);
  });
}

/** What a page of followers or following shows of each account. */
const FOLLOW_PAGE_COLUMNS = [
  "users.id",
  "users.cuid",
  "users.username",
  "users.display_name",
  "users.avatar_url",
  "users.is_bot",
  "users.bio",
] as const;
export type FollowPageUser = Pick<
  UserRow,
  "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "bio"
>;

/**
 * The statement of a page of USER's followers (direction "followers") or of the accounts USER
 * follows ("following"), newest follow first: a walk of the follows index of USER's side
 * (follows_followee_id / follows_follower_time) from the cursor, each account read by primary
 * key as it is checked (deleted ones and those blocked either way with the viewer are skipped),
 * with whether the viewer follows it (a probe of the pair index), stopping at LIMIT + 1 rows.
 */
export function followPageQuery(
  db: Db,
  viewerId: number,
  userId: number,
  direction: "followers" | "following",
  opts: { cursor: Cursor | null; limit: number },
) {
  const [mine, other] =
    direction === "followers" ? (["followee_id", "follower_id"] as const) : (["follower_id", "followee_id"] as const);
  return db
    .selectFrom("follows")
    .innerJoin("users", "users.id", `follows.${other}`)
    .select(FOLLOW_PAGE_COLUMNS)
    .select(["follows.id as follow_id", "follows.created_at as followed_at"])
    .select(() => relation("follows", "follower_id", "followee_id", "viewer→them", viewerId).as("viewer_follows"))
    .where(`follows.${mine}`, "=", userId)
    .where("users.deleted_at", "is", null)
    .where((eb) => notHiddenFrom(eb, "users.id", viewerId, false))
    .$if(opts.cursor !== null, (q) => q.where(beforeKey("follows.created_at", "follows.id", opts.cursor!)))
    .orderBy("follows.created_at", "desc")
    .orderBy("follows.id", "desc")
    .limit(literalLimit(opts.limit + 1));
}

/** followPageQuery compiled once per shape (direction, cursor or not, limit). */
const followPages = new ShapedQuery(
  (
    db: Db,
    v: { viewer: number; user: number; t: number; id: number },
    shape: { direction: "followers" | "following"; cursor: boolean; limit: number },
  ) =>
    followPageQuery(db, v.viewer, v.user, shape.direction, {
      cursor: shape.cursor ? { t: v.t, id: v.id } : null,
      limit: shape.limit,
    }),
  (s) => `${s.direction}:${s.cursor ? 1 : 0}:${s.limit}`,
);

/** One page of followers or following (see followPageQuery), in one statement. */
export async function listFollowPage(
  db: Db,
  viewerId: number,
  userId: number,
  direction: "followers" | "following",
  opts: { cursor: Cursor | null; limit: number },
) {
  const c = opts.cursor;
  const rows = await followPages.execute(
    db,
    { direction, cursor: c !== null, limit: opts.limit },
    { viewer: viewerId, user: userId, t: c?.t ?? 0, id: c?.id ?? 0 },
  );
  const page = pageOf(rows, opts.limit, (r) => ({ t: r.followed_at, id: r.follow_id }));
  return {
    users: page.items.map(({ follow_id: _f, followed_at: _t, viewer_follows, ...u }) => ({
      user: u as FollowPageUser,
      isFollowing: yes(viewer_follows),
    })),
    nextCursor: page.nextCursor,
  };
}
