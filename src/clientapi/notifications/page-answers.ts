import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { notificationCounts, notificationPage, type NotificationCounts } from "../../domain/notifications/service";
import { answerKey, KeptAnswers } from "../../cache/stamped-answers";
import { jsonText, ok, type SetHeaders } from "../../http/envelope";
import { decodeCursor, parseLimit, type Cursor } from "../../lib/paging";
import { parseFlag } from "../input";
import { serializeCounts, serializeNotification } from "./serialize";

/** A page of notifications asked for: where it starts, how long it is, and whether only unread groups. */
export interface NotificationsRequest {
  cursor: Cursor | null;
  limit: number;
  unreadOnly: boolean;
}

/**
 * `{notifications, unreadCount, unseenCount, pageInfo}` of RECIPIENT's page REQUEST as JSON text,
 * read afresh, with the COUNTS read before it.
 */
export async function readNotificationsPage(
  db: Db,
  recipientId: number,
  request: NotificationsRequest,
  counts: NotificationCounts,
): Promise<string> {
  const page = await notificationPage(db, recipientId, request);
  return JSON.stringify(
    ok({
      notifications: page.items.map(serializeNotification),
      ...serializeCounts(counts),
      pageInfo: { nextCursor: page.nextCursor },
    }),
  );
}

/**
 * The App's kept notification pages as JSON text, by recipient, unread only or not, limit and
 * cursor, and the recipient's notification_counts (version, unread and unseen), which triggers
 * raise on every change of what a page shows, whoever makes it (src/cache/registry.ts): a page
 * whose counts a read does not name is not used, and nothing has to be told of changes.
 */
const pagesService = defineService("notifications:kept-pages", () => new KeptAnswers<string>());

/**
 * RECIPIENT's page of notifications QUERY asks for, as JSON text: one primary-key statement (the
 * counts) when it is kept at the counts read now, else read and kept under them (read first: a
 * change made meanwhile raises them past the ones kept under, which then miss).
 */
export async function notificationsResponse(
  app: App,
  set: SetHeaders,
  recipientId: number,
  query: { cursor?: string; limit?: string; unread?: string },
): Promise<string> {
  const request = {
    cursor: decodeCursor(query.cursor),
    limit: parseLimit(query.limit),
    unreadOnly: parseFlag(query.unread, "unread"),
  };
  const counts = await notificationCounts(app.db, recipientId);
  const key = answerKey(recipientId, request.unreadOnly ? "unread" : "all", request.limit, query.cursor ?? "");
  const version = `${counts.version}:${counts.unread}:${counts.unseen}`;
  const text = app.services
    .get(pagesService)
    .answerAt(key, version, () => readNotificationsPage(app.db, recipientId, request, counts));
  return jsonText(set, await text);
}
