import type { App } from "../../app";
import { pick } from "../../lib/objects";
import { activeMemberIds, memberCount } from "./access";
import type { ConversationRow, MessageRow } from "./table";
import type { UserRow } from "../users/table";

/**
 * Realtime side of chat changes. A message event carries the message as the Client API
 * shows it (product.md: `message:new` is `{conversationId, message}`), so the domain only
 * announces it through the `message:live` hook and the Client API publishes its own shape
 * (src/clientapi/chats/live.ts): domain code never imports a surface's serializer.
 */
export function publishMessageEvent(
  app: App,
  conversation: Pick<ConversationRow, "id" | "cuid">,
  row: MessageRow,
  event: "message:new" | "message:edited",
  sender?: UserRow,
  memberIds?: number[],
): void | Promise<void> {
  return app.hooks.emit("message:live", {
    conversationId: conversation.id,
    messageId: row.id,
    event,
    conversation,
    message: row,
    sender,
    memberIds,
  });
}

/** Tells the members (and anyone just removed) that the chat's title, description, photo or members changed. */
export async function publishChatUpdated(app: App, conversationId: number, alsoUserIds: number[] = []): Promise<void> {
  const conversation = await app.db
    .selectFrom("conversations")
    .selectAll()
    .where("id", "=", conversationId)
    .executeTakeFirst();
  if (!conversation) return;
  const to = [...new Set([...(await activeMemberIds(app.db, conversationId)), ...alsoUserIds])];
  app.hooks.publish({
    type: "chat:changed",
    to,
    conversation: pick(conversation, "id", "cuid", "type", "title", "description", "photo_url"),
    memberCount: await memberCount(app.db, conversationId),
  });
}
