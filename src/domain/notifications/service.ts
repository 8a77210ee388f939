import type { App } from "../../app";
import type { Db } from "../../db";
import { compiledByIds, precompiled, ShapedQuery } from "../../db/compiled";
import { newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { isBlockedEitherWay } from "../relations/service";
import type { NotificationGroupRow, NotificationType } from "./table";
import { beforeKey, literalLimit } from "../posts/keyset";
import { inTransaction } from "../../db/transaction";

/** The same notification (actor, type, target) is not repeated within this window. */
const REPEAT_WINDOW_MS = 24 * 3_600_000;

/** How many of a group's latest actors a page shows. */
export const SHOWN_ACTORS = 3;

export interface NewNotification {
  recipientId: number;
  actorId: number;
  type: NotificationType;
  postId?: number;
  commentId?: number;
  /** reports.id of a "report" notification */
  reportId?: number;
}

/** Kinds that group while unread ("12 people liked your post", "3 people followed you"), by what they are about. */
const GROUPED: Partial<Record<NotificationType, (n: NewNotification) => string>> = {
  // a post's likes, or (with its comment) a comment's
  like: (n) => `like:${n.postId ?? ""}:${n.commentId ?? ""}`,
  repost: (n) => `repost:${n.postId ?? ""}`,
  poll: (n) => `poll:${n.postId ?? ""}`,
  follow: () => "follow",
};

/** The key a new notification joins an unread group by; a kind that does not group gets a key of its own. */
function groupKeyOf(n: NewNotification, cuid: string): string {
  return GROUPED[n.type]?.(n) ?? `n:${cuid}`;
}

/**
 * Stores a notification in the recipient's unread group of its kind (a new group when there is
 * none) and announces it on the 'notification:created' hook (the Client API delivers the group
 * live as 'notification:new'). Nothing happens when someone acts on their own content, when
 * either side blocks the other, or when the same notification was made within the last day.
 * The group's actor count and the recipient's unread count follow by triggers, in the same
 * transaction.
 */
export async function notify(app: App, n: NewNotification): Promise<void> {
  if (n.recipientId === n.actorId) return;
  if (await isBlockedEitherWay(app.db, n.recipientId, n.actorId)) return;
  const now = app.clock.now();
  // toggling (like, unlike, like; follow, unfollow, follow) notifies once a day, not each time
  const same = await app.db
    .selectFrom("notifications")
    .select("id")
    .where("recipient_id", "=", n.recipientId)
    .where("actor_id", "=", n.actorId)
    .where("type", "=", n.type)
    .where("created_at", ">", now - REPEAT_WINDOW_MS)
    // null-safe equality, in the standard spelling both engines take (`IS ?` is SQLite's own)
    .where("post_id", "is not distinct from", n.postId ?? null)
    .where("comment_id", "is not distinct from", n.commentId ?? null)
    .where("report_id", "is not distinct from", n.reportId ?? null)
    .executeTakeFirst();
  if (same) return;
  const cuid = newCuid();
  const stored = await inTransaction(app.storage, async ({ db: tx }) => {
    // joins the open group of its key, or opens one (the partial unique index keeps one per key,
    // also under concurrent writers)
    const group = await tx
      .insertInto("notification_groups")
      .values({
        cuid,
        recipient_id: n.recipientId,
        type: n.type,
        group_key: groupKeyOf(n, cuid),
        post_id: n.postId ?? null,
        comment_id: n.commentId ?? null,
        report_id: n.reportId ?? null,
        read_at: null,
        updated_at: now,
        created_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["recipient_id", "group_key"]).where("read_at", "is", null).doUpdateSet({ updated_at: now }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await tx
      .insertInto("notifications")
      .values({
        cuid: newCuid(),
        recipient_id: n.recipientId,
        actor_id: n.actorId,
        type: n.type,
        post_id: n.postId ?? null,
        comment_id: n.commentId ?? null,
        report_id: n.reportId ?? null,
        group_id: group.id,
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { notificationId: row.id, groupId: group.id };
  });
  await app.hooks.emit("notification:created", { recipientId: n.recipientId, ...stored });
}

/**
 * Takes ACTOR's notification of TYPE about a post or comment back (an unlike, an unfollow, an
 * undone repost): its group counts one actor less, and goes when none is left (triggers).
 */
export async function withdrawNotification(
  db: Db,
  n: Pick<NewNotification, "recipientId" | "actorId" | "type" | "postId" | "commentId">,
): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("recipient_id", "=", n.recipientId)
    .where("actor_id", "=", n.actorId)
    .where("type", "=", n.type)
    .where("post_id", "is not distinct from", n.postId ?? null)
    .where("comment_id", "is not distinct from", n.commentId ?? null)
    .execute();
}

/** Removes the notifications between A and B, either way (a block): their groups shrink or go. */
export async function removeNotificationsBetween(db: Db, a: number, b: number): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where((eb) =>
      eb.or([
        eb.and([eb("recipient_id", "=", a), eb("actor_id", "=", b)]),
        eb.and([eb("recipient_id", "=", b), eb("actor_id", "=", a)]),
      ]),
    )
    .execute();
}

/** What the person has not acted on: unread groups, and those of them with an event since the list was last opened. */
export interface NotificationCounts {
  unread: number;
  unseen: number;
  /** raised on every change of what a page of their notifications shows (notification_counts.version) */
  version: number;
}

/** The most unseen groups a badge counts: past it, it says no more than "a lot". */
const UNSEEN_COUNT_MAX = 1000;

/** The recipient's counts and their pages' version: one primary-key read of the counters triggers keep (notification_counts). */
export async function notificationCounts(db: Db, recipientId: number): Promise<NotificationCounts> {
  const [row] = await countsQuery(db, { recipientId });
  return {
    unread: Number(row?.unread ?? 0),
    unseen: Math.min(Number(row?.unseen ?? 0), UNSEEN_COUNT_MAX),
    version: Number(row?.version ?? 0),
  };
}

const countsQuery = precompiled((db, p: { recipientId: number }) =>
  db
    .selectFrom("notification_counts")
    .select(["unread", "unseen", "version"])
    .where("recipient_id", "=", p.recipientId),
);

/** The recipient opened their notifications at NOW: what came before stops counting in the badge (it stays unread). */
export async function markSeen(db: Db, now: number, recipientId: number): Promise<void> {
  await db
    .insertInto("notification_counts")
    .values({ recipient_id: recipientId, seen_at: now })
    .onConflict((oc) => oc.column("recipient_id").doUpdateSet({ seen_at: now }))
    .execute();
}

/** A group's row with the public ids of the post, comment and report it is about. */
type GroupRef = NotificationGroupRow & {
  post_cuid: string | null;
  comment_cuid: string | null;
  report_cuid: string | null;
};

/** The recipient's groups with the public ids of what they are about (left joins on primary keys). */
const groupRefs = (db: Db, recipientId: number) =>
  db
    .selectFrom("notification_groups as g")
    .leftJoin("posts as p", "p.id", "g.post_id")
    .leftJoin("comments as c", "c.id", "g.comment_id")
    .leftJoin("reports as r", "r.id", "g.report_id")
    .selectAll("g")
    .select(["p.cuid as post_cuid", "c.cuid as comment_cuid", "r.cuid as report_cuid"])
    .where("g.recipient_id", "=", recipientId);

/**
 * The groups of one page, newest event first, with the public ids of what they are about, in
 * one statement walking notification_groups_page (notification_groups_unread for unread ones
 * only) from the cursor.
 */
export function groupPageQuery(
  db: Db,
  recipientId: number,
  opts: { cursor: Cursor | null; limit: number; unreadOnly: boolean },
) {
  let q = groupRefs(db, recipientId);
  if (opts.unreadOnly) q = q.where("g.read_at", "is", null);
  if (opts.cursor) q = q.where(beforeKey("g.updated_at", "g.id", opts.cursor));
  return q
    .orderBy("g.updated_at", "desc")
    .orderBy("g.id", "desc")
    .limit(literalLimit(opts.limit + 1));
}

/** groupPageQuery compiled once per shape (cursor or not, unread only or not, limit). */
const groupPages = new ShapedQuery(
  (
    db: Db,
    v: { recipient: number; t: number; id: number },
    shape: { cursor: boolean; limit: number; unreadOnly: boolean },
  ) =>
    groupPageQuery(db, v.recipient, {
      cursor: shape.cursor ? { t: v.t, id: v.id } : null,
      limit: shape.limit,
      unreadOnly: shape.unreadOnly,
    }),
  (s) => `${s.cursor ? 1 : 0}:${s.limit}:${s.unreadOnly ? 1 : 0}`,
);

/** What a group shows of an actor. */
export type NotificationActor = Pick<UserRow, "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot">;

/**
 * The latest SHOWN_ACTORS actors of each of GROUPIDS, newest first, in one statement: a union of
 * one short walk of notifications_group_time per group (each stops after a few rows, however
 * many people a group counts).
 */
export function latestActorsQuery(db: Db, groupIds: readonly number[]) {
  const part = (groupId: number, i: number) =>
    db
      .selectFrom(
        db
          .selectFrom("notifications as n")
          .innerJoin("users as u", "u.id", "n.actor_id")
          .select([
            "n.group_id",
            "u.id",
            "u.cuid",
            "u.username",
            "u.display_name",
            "u.avatar_url",
            "u.is_bot",
            "n.created_at",
            "n.id as notification_id",
          ])
          .where("n.group_id", "=", groupId)
          .orderBy("n.created_at", "desc")
          .orderBy("n.id", "desc")
          .limit(literalLimit(SHOWN_ACTORS))
          .as(`a${i}`),
      )
      .selectAll();
  const [first, ...rest] = groupIds.map(part);
  return rest.reduce((q, p) => q.unionAll(p), first!);
}

/** latestActorsQuery compiled once per number of groups. */
const latestActors = compiledByIds((db, ids) => latestActorsQuery(db, ids));

/** A group with what its reader sees: its latest actors and the public ids of what it is about. */
export interface NotificationGroupView {
  row: NotificationGroupRow;
  /** newest first, at most SHOWN_ACTORS */
  actors: NotificationActor[];
  postCuid: string | null;
  commentCuid: string | null;
  reportCuid: string | null;
}

/** Views of the groups REFS in one more statement (their latest actors); a group without actors is left out. */
async function viewsOf(db: Db, refs: GroupRef[]): Promise<NotificationGroupView[]> {
  if (refs.length === 0) return [];
  const rows = await latestActors(
    db,
    refs.map((r) => r.id),
  );
  const byGroup = new Map<number, NotificationActor[]>();
  // SQL promises no order across a union's parts; each group's own rows are put newest first
  rows.sort((a, b) => b.created_at - a.created_at || b.notification_id - a.notification_id);
  for (const { group_id, created_at: _t, notification_id: _n, ...actor } of rows) {
    const list = byGroup.get(group_id!);
    if (list) list.push(actor);
    else byGroup.set(group_id!, [actor]);
  }
  return refs.flatMap(({ post_cuid, comment_cuid, report_cuid, ...row }) => {
    const actors = byGroup.get(row.id);
    if (!actors) return [];
    return [{ row, actors, postCuid: post_cuid, commentCuid: comment_cuid, reportCuid: report_cuid }];
  });
}

/**
 * One page of the recipient's notification groups, newest event first (unread ones only when
 * UNREADONLY), in two statements whatever the number of notifications: the page's groups, and
 * their latest actors. LAST is the cursor of the page's last group, to go on from.
 */
export async function notificationPage(
  db: Db,
  recipientId: number,
  opts: { cursor: Cursor | null; limit: number; unreadOnly: boolean },
): Promise<{ items: NotificationGroupView[]; nextCursor: string | null; last: Cursor | null }> {
  const shape = { cursor: opts.cursor !== null, limit: opts.limit, unreadOnly: opts.unreadOnly };
  const values = { recipient: recipientId, t: opts.cursor?.t ?? 0, id: opts.cursor?.id ?? 0 };
  const rows = (await groupPages.execute(db, shape, values)) as GroupRef[];
  const key = (r: GroupRef) => ({ t: r.updated_at, id: r.id });
  const page = pageOf(rows, opts.limit, key);
  const lastRow = page.items[page.items.length - 1];
  return { items: await viewsOf(db, page.items), nextCursor: page.nextCursor, last: lastRow ? key(lastRow) : null };
}

/** The view of group GROUPID (for the live delivery), or undefined when it is gone. */
export async function findNotificationGroupView(
  db: Db,
  recipientId: number,
  groupId: number,
): Promise<NotificationGroupView | undefined> {
  const rows = (await groupRefs(db, recipientId).where("g.id", "=", groupId).execute()) as GroupRef[];
  return (await viewsOf(db, rows))[0];
}

/** Marks the given groups (by cuid) or, with no ids, all of them read; returns how many changed. */
export async function markRead(db: Db, now: number, recipientId: number, cuids?: string[]): Promise<number> {
  let q = db
    .updateTable("notification_groups")
    .set({ read_at: now })
    .where("recipient_id", "=", recipientId)
    .where("read_at", "is", null);
  if (cuids) {
    if (cuids.length === 0) return 0;
    q = q.where("cuid", "in", cuids);
  }
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}
