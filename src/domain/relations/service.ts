import { sql, type ExpressionBuilder, type Kysely } from "kysely";
import type { Database, Db } from "../../db";
import { precompiled } from "../../db/compiled";

/**
 * Follows, blocks and mutes between accounts. Other features (feed, search, comments,
 * chats) call the read helpers here to hide people from each other.
 */

/** Accounts whose content the viewer must not see: blocked either way, plus muted by the viewer. */
export async function hiddenAuthorIds(db: Db, viewerId: number): Promise<number[]> {
  const [blocks, mutes] = await Promise.all([blockedEitherWayIds(db, viewerId), mutedIds(db, viewerId)]);
  return [...new Set([...blocks, ...mutes])];
}

/** Accounts the user blocked or that blocked the user. */
export async function blockedEitherWayIds(db: Db, userId: number): Promise<number[]> {
  const rows = await blocksEitherWayQuery(db, { userId });
  return [...new Set(rows.map((r) => (r.blocker_id === userId ? r.blocked_id : r.blocker_id)))];
}

const blocksEitherWayQuery = precompiled((db, p: { userId: number }) =>
  db
    .selectFrom("blocks")
    .select(["blocker_id", "blocked_id"])
    .where((eb) => eb.or([eb("blocker_id", "=", p.userId), eb("blocked_id", "=", p.userId)])),
);

/** Accounts the user muted. */
export async function mutedIds(db: Db, userId: number): Promise<number[]> {
  const rows = await mutedQuery(db, { userId });
  return rows.map((r) => r.muted_id);
}

const mutedQuery = precompiled((db, p: { userId: number }) =>
  db.selectFrom("mutes").select("muted_id").where("muter_id", "=", p.userId),
);

/**
 * VIEWER blocked nobody and nobody blocked VIEWER (WITH MUTES: nor did VIEWER mute anyone), as
 * a condition of a list's statement. Not correlated, so it is evaluated once per statement: put
 * first in an OR, it spares most viewers (who hide nobody) a list's per-row block probes or
 * hidden-account list (a noticeable share of a page's statement either way).
 */
export function hidesNobody(eb: ExpressionBuilder<Database, never>, viewerId: number, withMutes: boolean) {
  const none = [
    eb.not(eb.exists(eb.selectFrom("blocks").select("blocks.id").where("blocks.blocker_id", "=", viewerId))),
    eb.not(eb.exists(eb.selectFrom("blocks").select("blocks.id").where("blocks.blocked_id", "=", viewerId))),
  ];
  if (withMutes)
    none.push(eb.not(eb.exists(eb.selectFrom("mutes").select("mutes.id").where("mutes.muter_id", "=", viewerId))));
  return eb.and(none);
}

/**
 * The ids of accounts hidden from VIEWER (blocked either way, and WITH MUTES those the viewer
 * muted), as a subquery evaluated inside a list's own statement (the sets of blockedEitherWayIds
 * and hiddenAuthorIds without the round trips).
 */
function hiddenFromViewer(eb: ExpressionBuilder<Database, never>, viewerId: number, withMutes: boolean) {
  let q = eb
    .selectFrom("blocks")
    .select("blocked_id as uid")
    .where("blocker_id", "=", viewerId)
    .unionAll(eb.selectFrom("blocks").select("blocker_id as uid").where("blocked_id", "=", viewerId));
  if (withMutes) q = q.unionAll(eb.selectFrom("mutes").select("muted_id as uid").where("muter_id", "=", viewerId));
  return q;
}

/**
 * The account in the query's COLUMN is not hidden from VIEWER (see hiddenFromViewer), as a
 * condition of a list's statement. The list of hidden accounts is built only for a viewer who
 * hides someone (it costs three index searches and a temporary index): hidesNobody goes first.
 */
export function notHiddenFrom(eb: ExpressionBuilder<any, any>, column: string, viewer: number, withMutes: boolean) {
  const e = eb as ExpressionBuilder<Database, never>;
  return e.or([
    hidesNobody(e, viewer, withMutes),
    e(sql.ref(column), "not in", hiddenFromViewer(e, viewer, withMutes)),
  ]);
}

/**
 * Whether VIEWER and any account whose id is in one of the query's COLUMNS blocked the other,
 * for a select list or a condition: one EXISTS per account and direction, each a probe of the
 * blocks pair index, in the query's own statement. (One EXISTS with the pairs OR-ed made SQLite
 * build a row set per evaluation, several times dearer for a post's two accounts.)
 */
export function blockedEitherWayWithAny<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  viewer: number,
  columns: string[],
) {
  const w = eb as unknown as ExpressionBuilder<Database, never>;
  const probe = (from: "blocker_id" | "blocked_id", to: "blocker_id" | "blocked_id", column: string) =>
    w.exists(
      w
        .selectFrom("blocks as b")
        .select("b.blocker_id")
        .where(`b.${from}`, "=", viewer)
        .where(`b.${to}`, "=", sql.ref<number>(column)),
    );
  return w.or(columns.flatMap((c) => [probe("blocker_id", "blocked_id", c), probe("blocked_id", "blocker_id", c)]));
}

/** A block between A and B, either way: the rows of `blocks` a query selects from it (a where condition). */
export const blockBetween = (a: number, b: number) => (eb: ExpressionBuilder<Database, "blocks">) =>
  eb.or([
    eb.and([eb("blocker_id", "=", a), eb("blocked_id", "=", b)]),
    eb.and([eb("blocker_id", "=", b), eb("blocked_id", "=", a)]),
  ]);

// every message to a private chat asks this: compiled once (db/compiled.ts)
const blockedEitherWayQuery = precompiled((db: Db, p: { a: number; b: number }) =>
  db.selectFrom("blocks").select("id").where(blockBetween(p.a, p.b)),
);

/** True when a blocked b or b blocked a. */
export async function isBlockedEitherWay(db: Db, a: number, b: number): Promise<boolean> {
  return (await blockedEitherWayQuery(db, { a, b })).length > 0;
}

/** True when blocker blocked blocked (one direction). */
export async function hasBlocked(db: Db, blocker: number, blocked: number): Promise<boolean> {
  const row = await db
    .selectFrom("blocks")
    .select("id")
    .where("blocker_id", "=", blocker)
    .where("blocked_id", "=", blocked)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when muter muted muted. */
export async function hasMuted(db: Db, muter: number, muted: number): Promise<boolean> {
  const row = await db
    .selectFrom("mutes")
    .select("id")
    .where("muter_id", "=", muter)
    .where("muted_id", "=", muted)
    .executeTakeFirst();
  return row !== undefined;
}

/** Accounts the user follows. */
export async function followedIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.selectFrom("follows").select("followee_id").where("follower_id", "=", userId).execute();
  return rows.map((r) => r.followee_id);
}

/** Accounts that follow the user. */
export async function followerIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.selectFrom("follows").select("follower_id").where("followee_id", "=", userId).execute();
  return rows.map((r) => r.follower_id);
}

/** True when follower follows followee. */
export async function isFollowing(db: Db, follower: number, followee: number): Promise<boolean> {
  const row = await db
    .selectFrom("follows")
    .select("id")
    .where("follower_id", "=", follower)
    .where("followee_id", "=", followee)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Followers and following counts of an account (live accounts only: a deleted account's
 * follows go with it), from the counter columns the follows triggers keep.
 */
export async function followCounts(db: Db, userId: number): Promise<{ followers: number; following: number }> {
  const row = await db
    .selectFrom("users")
    .select(["followers_count", "following_count"])
    .where("id", "=", userId)
    .executeTakeFirst();
  return { followers: row?.followers_count ?? 0, following: row?.following_count ?? 0 };
}

/** The two account columns (from → to) of each relation table. */
const PAIR_COLUMNS = {
  follows: ["follower_id", "followee_id"],
  blocks: ["blocker_id", "blocked_id"],
  mutes: ["muter_id", "muted_id"],
} as const;

/** Adds (idempotently) or removes the row A → B of a relation table. */
async function setPair(
  db: Db,
  table: keyof typeof PAIR_COLUMNS,
  now: number,
  a: number,
  b: number,
  on: boolean,
): Promise<void> {
  const [colA, colB] = PAIR_COLUMNS[table];
  // the three tables share this shape; Kysely cannot type a table chosen at run time
  const anyDb = db as unknown as Kysely<any>;
  if (on) {
    await anyDb
      .insertInto(table)
      .values({ [colA]: a, [colB]: b, created_at: now })
      .onConflict((oc) => oc.columns([colA, colB]).doNothing())
      .execute();
  } else {
    await anyDb.deleteFrom(table).where(colA, "=", a).where(colB, "=", b).execute();
  }
}

/** Makes follower follow followee (or stop); returns the new state. Callers check blocks first. */
export async function setFollowing(
  db: Db,
  now: number,
  follower: number,
  followee: number,
  on: boolean,
): Promise<boolean> {
  await setPair(db, "follows", now, follower, followee, on);
  return on;
}

/**
 * Blocks (or unblocks) an account; blocking also removes follows both ways. DB is the
 * transaction the caller runs the block in (with whatever else a block removes).
 */
export async function setBlocked(db: Db, now: number, blocker: number, blocked: number, on: boolean): Promise<boolean> {
  await setPair(db, "blocks", now, blocker, blocked, on);
  if (!on) return on;
  await db
    .deleteFrom("follows")
    .where((eb) =>
      eb.or([
        eb.and([eb("follower_id", "=", blocker), eb("followee_id", "=", blocked)]),
        eb.and([eb("follower_id", "=", blocked), eb("followee_id", "=", blocker)]),
      ]),
    )
    .execute();
  return on;
}

/** Mutes (or unmutes) an account for the muter only. */
export async function setMuted(db: Db, now: number, muter: number, muted: number, on: boolean): Promise<boolean> {
  await setPair(db, "mutes", now, muter, muted, on);
  return on;
}
