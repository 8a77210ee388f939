import { Elysia } from "elysia";
import type { App } from "../../app";
import { realtimeRoutes } from "../../realtime/routes";
import { chatGroupRoutes } from "./groups";
import { chatMessageRoutes } from "./messages";

/**
 * Chats and realtime under /api:
 *   POST   /social/users/{username}/message         open a private chat {start?}
 *   GET    /social/messages                          my chats (cursor)
 *   GET    /social/messages/{cid}                    history (?before, ?limit)
 *   POST   /social/messages/{cid}                    send {content, clientMessageId, replyToId, media}
 *   POST   /social/messages/{cid}/read|typing
 *   PATCH  /social/messages/{cid}/{mid}              edit; DELETE deletes (?forEveryone)
 *   POST   /social/messages/{cid}/{mid}/reactions|pin|forward; DELETE .../pin
 *   POST   /social/groups, /social/groups/join; PATCH /social/groups/{cid}
 *   GET|POST /social/groups/{cid}/members; DELETE .../members/{username}; POST .../promote
 *   POST   /social/groups/{cid}/leave|invite
 *   GET    /realtime/events (SSE), /realtime/ws (WebSocket)
 */
export function chatsRoutes(app: App) {
  return new Elysia({ name: "client-chats" }).use(chatMessageRoutes(app)).use(chatGroupRoutes(app)).use(realtimeRoutes(app));
}
