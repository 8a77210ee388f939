import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { listNotifications, markRead, presentNotifications, unreadCount } from "../../domain/notifications/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { fieldError } from "../../lib/errors";
import { decodeCursor, parseLimit } from "../../lib/paging";

const ListQuery = t.Object({
  cursor: t.Optional(t.String({ maxLength: 200 })),
  limit: t.Optional(t.String({ maxLength: 10 })),
  unread: t.Optional(t.String({ maxLength: 5 })),
});
const ReadBody = t.Object({ ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })) });

function parseFlag(raw: string | undefined, field: string): boolean {
  if (raw === undefined || raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw fieldError(field, "must be true or false");
}

/** Notifications: list (cursor, unread filter) and mark read, under /api/social/notifications. */
export function notificationRoutes(app: App) {
  return new Elysia({ name: "client-notifications", prefix: "/social/notifications" })
    .use(requestContext(app))
    .get(
      "/",
      async ({ query, user }) => {
        const page = await listNotifications(app.db, user.id, {
          cursor: decodeCursor(query.cursor),
          limit: parseLimit(query.limit),
          unreadOnly: parseFlag(query.unread, "unread"),
        });
        return ok({
          notifications: await presentNotifications(app.db, page.items),
          unreadCount: await unreadCount(app.db, user.id),
          pageInfo: { nextCursor: page.nextCursor },
        });
      },
      { auth: true, query: ListQuery },
    )
    .post(
      "/read",
      async ({ body, user }) => {
        const updated = await markRead(app.db, app.clock.now(), user.id, body?.ids);
        return ok({ updated, unreadCount: await unreadCount(app.db, user.id) });
      },
      { auth: true, body: t.Optional(ReadBody) },
    );
}
