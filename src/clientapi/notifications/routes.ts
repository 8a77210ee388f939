import { doc } from "../docs";
import { Notification, NotificationCounts as Counts, Page } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { markRead, markSeen, notificationCounts, type NotificationCounts } from "../../domain/notifications/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { PageQuery } from "../input";
import { serializeCounts } from "./serialize";
import { notificationsResponse } from "./page-answers";

const ListQuery = t.Object({ ...PageQuery.properties, unread: t.Optional(t.String({ maxLength: 5 })) });
const ReadBody = t.Object({ ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })) });

/**
 * Notifications: list (cursor, unread filter), mark read and mark seen, under
 * /api/social/notifications. Read and seen tell the person's other windows the new counts
 * ('notification:counts'), so every badge follows.
 */
export function notificationRoutes(app: App) {
  const publishCounts = (userId: number, counts: NotificationCounts) => {
    const shown = serializeCounts(counts);
    app.events.publish(userId, "notification:counts", shown);
    return shown;
  };
  return new Elysia({ name: "client-notifications" })
    .use(requestContext(app))
    .get("/", ({ query, user, set }) => notificationsResponse(app, set, user.id, query), {
      auth: true,
      query: ListQuery,
      detail: doc(
        "My notifications, grouped (likes, reposts and poll votes of one post, and follows, while unread), newest first (?unread=true: unread only); unreadCount counts unread groups, unseenCount those with an event since the list was last opened (POST /seen)",
        {
          data: t.Composite([Page("notifications", Notification), Counts]),
        },
      ),
    })
    .post(
      "/read",
      async ({ body, user }) => {
        const updated = await markRead(app.db, app.clock.now(), user.id, body?.ids);
        return ok({ updated, ...publishCounts(user.id, await notificationCounts(app.db, user.id)) });
      },
      {
        auth: true,
        body: t.Optional(ReadBody),
        detail: doc("Mark notification groups read: the ids given, or all", {
          data: t.Composite([t.Object({ updated: t.Integer() }), Counts]),
        }),
      },
    )
    .post(
      "/seen",
      async ({ user }) => {
        await markSeen(app.db, app.clock.now(), user.id);
        return ok(publishCounts(user.id, await notificationCounts(app.db, user.id)));
      },
      {
        auth: true,
        detail: doc(
          "I opened my notifications: unseenCount (the badge) starts again from now; the groups stay unread until read",
          { data: Counts },
        ),
      },
    );
}
