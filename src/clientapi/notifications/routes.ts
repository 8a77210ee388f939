import { doc } from "../docs";
import { Notification, Page } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { markRead, notificationPage, unreadCount } from "../../domain/notifications/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { PageQuery, parseFlag } from "../input";
import { decodeCursor, parseLimit } from "../../lib/paging";
import { serializeNotification } from "./serialize";

const ListQuery = t.Object({ ...PageQuery.properties, unread: t.Optional(t.String({ maxLength: 5 })) });
const ReadBody = t.Object({ ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })) });

/** Notifications: list (cursor, unread filter) and mark read, under /api/social/notifications. */
export function notificationRoutes(app: App) {
  return new Elysia({ name: "client-notifications" })
    .use(requestContext(app))
    .get(
      "/",
      async ({ query, user }) => {
        const page = await notificationPage(app.db, user.id, {
          cursor: decodeCursor(query.cursor),
          limit: parseLimit(query.limit),
          unreadOnly: parseFlag(query.unread, "unread"),
        });
        return ok({
          notifications: page.items.map(serializeNotification),
          unreadCount: await unreadCount(app.db, user.id),
          pageInfo: { nextCursor: page.nextCursor },
        });
      },
      {
        auth: true,
        query: ListQuery,
        detail: doc(
          "My notifications, grouped (likes, reposts and poll votes of one post, and follows, while unread), newest first (?unread=true: unread only); unreadCount counts unread groups",
          {
            data: t.Composite([Page("notifications", Notification), t.Object({ unreadCount: t.Integer() })]),
          },
        ),
      },
    )
    .post(
      "/read",
      async ({ body, user }) => {
        const updated = await markRead(app.db, app.clock.now(), user.id, body?.ids);
        return ok({ updated, unreadCount: await unreadCount(app.db, user.id) });
      },
      {
        auth: true,
        body: t.Optional(ReadBody),
        detail: doc("Mark notification groups read: the ids given, or all", {
          data: t.Object({ updated: t.Integer(), unreadCount: t.Integer() }),
        }),
      },
    );
}
