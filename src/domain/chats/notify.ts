import type { App } from "../../app";
import { serializeMessage } from "../../clientapi/chats/serialize";
import { activeMemberIds } from "./access";
import { ACTIVE_ROLES, type ConversationRow, type MessageRow } from "./table";

/**
 * Realtime side of chat changes. Events carry Client API shapes (product.md: `message:new`
 * is `{conversationId, message}` with the message as the Client API shows it).
 */
export async function publishMessageEvent(app: App, conversation: ConversationRow, row: MessageRow, event: "message:new" | "message:edited"): Promise<void> {
  const ids = await activeMemberIds(app.db, conversation.id);
  if (ids.length === 0) return;
  const message = await serializeMessage(app.db, conversation, row);
  app.events.publish(ids, event, { conversationId: conversation.cuid, message });
}

/** The part of a chat every member sees alike (per-viewer fields come from the chat endpoints). */
export async function chatSummary(app: App, conversation: ConversationRow) {
  const count = await app.db
    .selectFrom("conversation_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("conversation_id", "=", conversation.id)
    .where("role", "in", ACTIVE_ROLES)
    .executeTakeFirstOrThrow();
  return {
    id: conversation.cuid,
    type: conversation.type,
    title: conversation.title,
    photoUrl: conversation.photo_url,
    memberCount: Number(count.n),
  };
}

/** Tells the members (and anyone just removed) that the chat's title, photo or members changed. */
export async function publishChatUpdated(app: App, conversationId: number, alsoUserIds: number[] = []): Promise<void> {
  const conversation = await app.db.selectFrom("conversations").selectAll().where("id", "=", conversationId).executeTakeFirst();
  if (!conversation) return;
  const ids = [...new Set([...(await activeMemberIds(app.db, conversationId)), ...alsoUserIds])];
  app.events.publish(ids, "chat:updated", { conversationId: conversation.cuid, chat: await chatSummary(app, conversation) });
}
