import type { App } from "../../app";
import { toIso } from "../../lib/clock";
import { ensureSystemAccount } from "../users/system";
import { registerExportSection } from "../account/export";
import type { UserRow } from "../users/table";
import { ensurePrivateChat } from "./conversations";
import { forgetDeletedAccount } from "./members";
import { sendMessage } from "./messages";
import { findUserById } from "../users/service";
import { textFor } from "../users/language";

/** Writes TEXT from the system account into USER's private chat with it. */
export async function sendSystemNotice(app: App, userId: number, text: string) {
  const system = await ensureSystemAccount(app.db, app.clock.now());
  const { conversation } = await ensurePrivateChat(app, system.id, userId);
  return sendMessage(app, { conversationId: conversation.id, senderId: system.id, content: text });
}

/** Hook listeners of the chats feature (installed for every App from wiring.ts). */
export function installChatHooks(app: App): void {
  // two-factor "messenger" method: the code arrives as a message on the person's other devices
  app.hooks.on("auth:deliver-code", async ({ userId, code }) => {
    const t = await textFor((await findUserById(app.db, userId))?.language);
    await sendSystemNotice(app, userId, t("chat.signInCode", { code }));
  });
  registerExportSection(app, "messages", exportMessages);
  app.hooks.on("user:deleted", ({ userId }) => forgetDeletedAccount(app, userId));
}

/** Data export: the person's chats and the messages they wrote (not other people's). */
async function exportMessages(app: App, user: UserRow) {
  const chats = await app.db
    .selectFrom("conversation_members as m")
    .innerJoin("conversations as c", "c.id", "m.conversation_id")
    .select(["c.cuid", "c.type", "c.title", "m.role", "m.joined_at"])
    .where("m.user_id", "=", user.id)
    .orderBy("m.joined_at")
    .execute();
  const messages = await app.db
    .selectFrom("messages")
    .innerJoin("conversations", "conversations.id", "messages.conversation_id")
    .select([
      "conversations.cuid as conversationId",
      "messages.seq",
      "messages.content",
      "messages.media",
      "messages.created_at",
      "messages.edited_at",
    ])
    .where("messages.sender_id", "=", user.id)
    .where("messages.deleted_at", "is", null)
    .where("messages.kind", "=", "user")
    .orderBy("messages.id")
    .execute();
  return {
    conversations: chats.map((c) => ({
      id: c.cuid,
      type: c.type,
      title: c.title,
      role: c.role,
      joinedAt: toIso(c.joined_at),
    })),
    sent: messages.map((m) => ({
      conversationId: m.conversationId,
      messageId: m.seq,
      content: m.content,
      media: m.media ? JSON.parse(m.media) : [],
      createdAt: toIso(m.created_at),
      editedAt: m.edited_at === null ? null : toIso(m.edited_at),
    })),
  };
}
