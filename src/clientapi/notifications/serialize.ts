import type { App } from "../../app";
import {
  findNotification,
  loadNotificationViews,
  unreadCount,
  type NotificationView,
} from "../../domain/notifications/service";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";

/** A notification as the Client API shows it (also the 'notification:new' payload). */
export function serializeNotification(v: NotificationView) {
  return {
    id: v.row.cuid,
    type: v.row.type,
    actor: serializePublicUser(v.actor),
    postId: v.postCuid,
    commentId: v.commentCuid,
    reportId: v.reportCuid,
    read: v.row.read_at !== null,
    createdAt: toIso(v.row.created_at),
  };
}

/** Delivers every stored notification live to its recipient as 'notification:new'. */
export function installNotificationDelivery(app: App): void {
  app.hooks.on("notification:created", async ({ recipientId, notificationId }) => {
    const row = await findNotification(app.db, notificationId);
    if (!row) return;
    const [view] = await loadNotificationViews(app.db, [row]);
    if (!view) return;
    app.events.publish(recipientId, "notification:new", {
      notification: serializeNotification(view),
      unreadCount: await unreadCount(app.db, recipientId),
    });
  });
}
