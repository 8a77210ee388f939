import type { App } from "../../app";
import {
  findNotificationGroupView,
  notificationCounts,
  type NotificationCounts,
  type NotificationGroupView,
} from "../../domain/notifications/service";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";

/**
 * A notification group as the Client API shows it (also the 'notification:new' payload): the
 * fields of one notification (its latest actor, the time of its latest event), with how many
 * people it counts (`count`) and the latest few of them (`actors`, newest first).
 */
export function serializeNotification(v: NotificationGroupView) {
  const actors = v.actors.map(serializePublicUser);
  return {
    id: v.row.cuid,
    type: v.row.type,
    actor: actors[0]!,
    actors,
    count: Number(v.row.actor_count),
    postId: v.postCuid,
    commentId: v.commentCuid,
    reportId: v.reportCuid,
    read: v.row.read_at !== null,
    createdAt: toIso(v.row.updated_at),
  };
}

/** Delivers every stored notification live to its recipient as 'notification:new': its group as it now is. */
export function installNotificationDelivery(app: App): void {
  app.hooks.on("notification:created", async ({ recipientId, groupId }) => {
    const view = await findNotificationGroupView(app.db, recipientId, groupId);
    if (!view) return;
    app.events.publish(recipientId, "notification:new", {
      notification: serializeNotification(view),
      ...serializeCounts(await notificationCounts(app.db, recipientId)),
    });
  });
}

/** The counts as the Client API shows them: unreadCount (unread groups) and unseenCount (the badge's). */
export const serializeCounts = (c: NotificationCounts) => ({ unreadCount: c.unread, unseenCount: c.unseen });
