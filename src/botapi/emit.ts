import type { App } from "../app";
import type { Db } from "../db";
import type { Scope } from "../db/transaction";
import type { DomainTxHookPayloads } from "../domain/hooks";
import { findConversationById, findMessageById, findMessageBySeq, getMember } from "../domain/chats/access";
import type { ConversationRow, MessageRow, SendChat } from "../domain/chats/table";
import { enqueueUpdate, type UpdateType } from "../domain/bots/updates";
import { botMembersOf, findBotByUserId, type BotWithUser } from "../domain/bots/service";
import { findUserById } from "../domain/users/service";
import type { UserRow } from "../domain/users/table";
import { toUnixSeconds } from "../lib/clock";
import { detectEntities, type MessageEntity } from "./formatting";
import { pollOf, pollTallies } from "../domain/chats/polls";
import {
  serializeChat,
  serializeChatMember,
  serializeMessage,
  serializePoll,
  serializeUser,
  optionPersistentId,
} from "./serializers";

/**
 * Whether a group message reaches a bot in privacy mode ("commands"): commands meant for
 * every bot or for this one (/cmd, /cmd@this_bot) and replies to the bot's messages.
 */
async function reachesBot(db: Db, member: BotWithUser, conversation: SendChat, message: MessageRow): Promise<boolean> {
  if (conversation.type === "private" || member.bot.privacy === "all") return true;
  const entities = message.entities
    ? (JSON.parse(message.entities) as MessageEntity[])
    : detectEntities(message.content);
  const command = entities.find((e) => e.type === "bot_command" && e.offset === 0);
  if (command) {
    const text = message.content.slice(command.offset, command.offset + command.length);
    const at = text.indexOf("@");
    if (at < 0 || text.slice(at + 1).toLowerCase() === member.user.username.toLowerCase()) return true;
  }
  if (message.reply_to_seq !== null) {
    const replied = await findMessageBySeq(db, conversation.id, message.reply_to_seq);
    if (replied?.sender_id === member.user.id) return true;
  }
  return false;
}

/**
 * A person's message becomes an update for each bot in the chat it reaches. A new message's
 * updates are queued in SCOPE, the message's own transaction: stored together or not at all
 * (a retry of the send then finds both); an edit's after the edit committed.
 */
async function messageToBots(
  app: App,
  type: UpdateType,
  conversation: SendChat,
  message: MessageRow,
  scope?: Scope,
  sender?: UserRow,
): Promise<void> {
  // bots do not see service messages, nor other bots' messages
  if (message.kind !== "user" || message.deleted_at !== null || sender?.is_bot) return;
  const db = scope?.db ?? app.db;
  const bots = await botMembersOf(db, conversation.id, message.sender_id);
  if (bots.length === 0) return;
  const author = sender ?? (await findUserById(db, message.sender_id));
  if (!author || author.is_bot) return;
  for (const member of bots) {
    if (!(await reachesBot(db, member, conversation, message))) continue;
    // in a private chat with a bot, the author is the other party
    const view = { conversation, other: conversation.type === "private" ? author : null, self: member.user };
    await enqueueUpdate(app, member.bot, type, await serializeMessage(db, view, message), scope);
  }
}

/** An edited message, loaded after the edit committed, for the bots it reaches. */
async function editedToBots(app: App, conversationId: number, messageId: number): Promise<void> {
  const [conversation, message] = await Promise.all([
    findConversationById(app.db, conversationId),
    findMessageById(app.db, messageId),
  ]);
  if (conversation && message) await messageToBots(app, "edited_message", conversation, message);
}

/** A bot's own membership in a group changed: my_chat_member. */
async function membershipToBot(
  app: App,
  p: { conversationId: number; userId: number; actorId: number; oldRole: string | null; newRole: string },
): Promise<void> {
  const found = await findBotByUserId(app.db, p.userId);
  if (!found) return;
  const { bot, user: botUser } = found;
  const [conversation, actor, member] = await Promise.all([
    findConversationById(app.db, p.conversationId),
    findUserById(app.db, p.actorId),
    getMember(app.db, p.conversationId, p.userId),
  ]);
  if (!conversation || conversation.type !== "group" || !botUser) return;
  const oldStatus = p.oldRole ?? "left";
  await enqueueUpdate(app, bot, "my_chat_member", {
    chat: serializeChat(conversation, null),
    from: serializeUser(actor ?? botUser),
    date: toUnixSeconds(app.clock.now()),
    old_chat_member: serializeChatMember({ role: oldStatus as never, rights: null }, botUser),
    new_chat_member: serializeChatMember({ role: p.newRole as never, rights: member?.rights ?? null }, botUser),
  });
}

/**
 * A vote in a poll a bot sent (not a forward of it): poll_answer (non-anonymous polls: who
 * chose what; an empty option_ids is a vote taken back), then poll (the new counts), queued
 * in the vote's own transaction.
 */
async function pollAnswerToBot(
  app: App,
  scope: Scope,
  p: { message: MessageRow; userId: number; chosen: number[] },
): Promise<void> {
  const poll = pollOf(p.message, app.clock.now());
  if (!poll || p.message.forwarded_from !== null) return;
  const found = await findBotByUserId(scope.db, p.message.sender_id);
  if (!found) return;
  if (!poll.is_anonymous) {
    const voter = await findUserById(scope.db, p.userId);
    if (voter)
      await enqueueUpdate(
        app,
        found.bot,
        "poll_answer",
        {
          poll_id: poll.id,
          user: serializeUser(voter),
          option_ids: p.chosen,
          option_persistent_ids: p.chosen.map(optionPersistentId),
        },
        scope,
      );
  }
  const tally = (await pollTallies(scope.db, [p.message])).get(p.message.id);
  await enqueueUpdate(app, found.bot, "poll", serializePoll(poll, tally), scope);
}

/** Turns chat activity into bot updates. Registered once per App (wiring.ts). */
export function installBotUpdateHooks(app: App): void {
  // most chats have no bot but the sender: then no query for bots at all
  const reachesBots = (p: DomainTxHookPayloads["message:storing"]) =>
    p.members.some((m) => m.is_bot && m.user_id !== p.message.sender_id);
  app.hooks.within(
    "message:storing",
    (scope, p) =>
      reachesBots(p) ? messageToBots(app, "message", p.conversation, p.message, scope, p.sender) : undefined,
    reachesBots,
  );
  app.hooks.on("message:edited", (p) => editedToBots(app, p.conversationId, p.messageId));
  app.hooks.on("member:changed", (p) => membershipToBot(app, p));
  app.hooks.within("poll:answered", (scope, p) => pollAnswerToBot(app, scope, p));
}
