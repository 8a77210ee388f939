import { doc } from "../docs";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { unreadChats } from "../../domain/chats/unread";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";

/** GET /api/social/messages/unread: what the header's Messages badge shows. */
export function chatUnreadRoutes(app: App) {
  return new Elysia({ name: "client-chat-unread" }).use(requestContext(app)).get(
    "/unread",
    async ({ user }) => {
      const unread = await unreadChats(app.db, user.id);
      return ok({ unreadChats: unread.chats, unreadMessages: unread.messages });
    },
    {
      auth: true,
      detail: doc("How many of my chats have unread messages, and how many messages that is", {
        data: t.Object({ unreadChats: t.Integer(), unreadMessages: t.Integer() }),
      }),
    },
  );
}
