import type { App } from "../../app";
import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import type { UserRow } from "../users/table";
import { blockedEitherWayIds, isBlockedEitherWay } from "../relations/service";
import type { NotificationRow, NotificationType } from "./table";
import { beforeKey } from "../posts/keyset";

/** The same notification (actor, type, target) is not repeated within this window. */
const REPEAT_WINDOW_MS = 24 * 3_600_000;

export interface NewNotification {
  recipientId: number;
  actorId: number;
  type: NotificationType;
  postId?: number;
  commentId?: number;
  /** reports.id of a "report" notification */
  reportId?: number;
}

/**
 * Stores a notification and announces it on the 'notification:created' hook (the Client API
 * delivers it live as 'notification:new'). Nothing happens when
 * someone acts on their own content, when either side blocks the other, or when the same
 * notification was made within the last day.
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
    // null-safe equality, in the standard spelling both engines take (`IS ?` is SQLite's own)
    .where("post_id", "is not distinct from", n.postId ?? null)
    .where("comment_id", "is not distinct from", n.commentId ?? null)
    .where("report_id", "is not distinct from", n.reportId ?? null)
    .where("created_at", ">", now - REPEAT_WINDOW_MS)
    .executeTakeFirst();
  if (same) return;
  const row = await app.db
    .insertInto("notifications")
    .values({
      cuid: newCuid(),
      recipient_id: n.recipientId,
      actor_id: n.actorId,
      type: n.type,
      post_id: n.postId ?? null,
      comment_id: n.commentId ?? null,
      report_id: n.reportId ?? null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await app.hooks.emit("notification:created", { recipientId: n.recipientId, notificationId: row.id });
}

/** A notification row by id (for hook listeners). */
export async function findNotification(db: Db, id: number): Promise<NotificationRow | undefined> {
  return db.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Notifications visible to the recipient: actor alive and not blocked either way, and the
 * post or comment they are about still there.
 */
function visibleTo(db: Db, recipientId: number, hidden: number[]) {
  let q = db
    .selectFrom("notifications")
    .innerJoin("users", "users.id", "notifications.actor_id")
    .where("notifications.recipient_id", "=", recipientId)
    .where("users.deleted_at", "is", null)
    .where((eb) =>
      eb.and([
        eb.or([
          eb("notifications.post_id", "is", null),
          eb.exists(eb.selectFrom("posts").select("posts.id").whereRef("posts.id", "=", "notifications.post_id")),
        ]),
        eb.or([
          eb("notifications.comment_id", "is", null),
          eb.exists(
            eb.selectFrom("comments").select("comments.id").whereRef("comments.id", "=", "notifications.comment_id"),
          ),
        ]),
      ]),
    );
  if (hidden.length) q = q.where("notifications.actor_id", "not in", hidden);
  return q;
}

/** Unread notifications the recipient can see (HIDDEN: the recipient's blocked-either-way ids, when already known). */
export async function unreadCount(db: Db, recipientId: number, hidden?: number[]): Promise<number> {
  hidden ??= await blockedEitherWayIds(db, recipientId);
  const row = await visibleTo(db, recipientId, hidden)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("notifications.read_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of the recipient's notifications, newest first (HIDDEN as for unreadCount). */
export async function listNotifications(
  db: Db,
  recipientId: number,
  opts: { cursor: Cursor | null; limit: number; unreadOnly: boolean; hidden?: number[] },
) {
  const hidden = opts.hidden ?? (await blockedEitherWayIds(db, recipientId));
  let q = visibleTo(db, recipientId, hidden).selectAll("notifications");
  if (opts.unreadOnly) q = q.where("notifications.read_at", "is", null);
  if (opts.cursor) q = q.where(beforeKey("notifications.created_at", "notifications.id", opts.cursor));
  const rows = await q
    .orderBy("notifications.created_at", "desc")
    .orderBy("notifications.id", "desc")
    .limit(opts.limit + 1)
    .execute();
  return pageOf(rows, opts.limit, (r) => ({ t: r.created_at, id: r.id }));
}

/** Marks the given notifications (by cuid) or, with no ids, all of them read; returns how many changed. */
export async function markRead(db: Db, now: number, recipientId: number, cuids?: string[]): Promise<number> {
  let q = db
    .updateTable("notifications")
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

/** Maps integer ids of posts, comments or reports to their cuids. */
async function cuidsOf(db: Db, table: "posts" | "comments" | "reports", ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom(table).select(["id", "cuid"]).where("id", "in", unique).execute();
  return new Map(rows.map((r) => [r.id, r.cuid]));
}

/** A notification with what a reader sees: the actor, and the cuids of the post and comment it is about. */
export interface NotificationView {
  row: NotificationRow;
  actor: UserRow;
  postCuid: string | null;
  commentCuid: string | null;
  reportCuid: string | null;
}

/** Builds views of ROWS in a fixed number of queries; rows whose actor is gone are left out. */
export async function loadNotificationViews(db: Db, rows: NotificationRow[]): Promise<NotificationView[]> {
  const actorIds = [...new Set(rows.map((r) => r.actor_id))];
  const actors = actorIds.length ? await db.selectFrom("users").selectAll().where("id", "in", actorIds).execute() : [];
  const byId = new Map<number, UserRow>(actors.map((u) => [u.id, u]));
  const posts = await cuidsOf(
    db,
    "posts",
    rows.flatMap((r) => (r.post_id === null ? [] : [r.post_id])),
  );
  const comments = await cuidsOf(
    db,
    "comments",
    rows.flatMap((r) => (r.comment_id === null ? [] : [r.comment_id])),
  );
  const reports = await cuidsOf(
    db,
    "reports",
    rows.flatMap((r) => (r.report_id === null ? [] : [r.report_id])),
  );
  return rows.flatMap((row) => {
    const actor = byId.get(row.actor_id);
    if (!actor) return [];
    return [
      {
        row,
        actor,
        postCuid: row.post_id === null ? null : (posts.get(row.post_id) ?? null),
        commentCuid: row.comment_id === null ? null : (comments.get(row.comment_id) ?? null),
        reportCuid: row.report_id === null ? null : (reports.get(row.report_id) ?? null),
      },
    ];
  });
}
