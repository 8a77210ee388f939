import type { App } from "../app";
import type { Db } from "../db";
import {
  findConversationById,
  findPrivateChat,
  findUserWithPrivateChat,
  findUserWithPrivateChatForSend,
  getMember,
  isActive,
  otherPartyId,
  type SendAudience,
} from "../domain/chats/access";
import { ensurePrivateChat } from "../domain/chats/conversations";
import type { ChatMember, ConversationRow, MessageRow, SendChat } from "../domain/chats/table";
import { sendAccessOf } from "../domain/chats/send-access";
import { sendInOneStatement, type SendMessageInput, type StoreOptions } from "../domain/chats/messages";
import type { Scope } from "../db/transaction";
import { consumeNewChatBudget } from "../domain/bots/first-contact";
import { botMayWriteFirst } from "../domain/settings/service";
import { accountIdOf } from "../domain/bots/ids";
import { findUserById, findUserByUsername } from "../domain/users/service";
import type { UserRow } from "../domain/users/table";
import type { BotContext } from "./context";
import { blockedByUser, botError, chatNotFound, forbiddenBot } from "./errors";
import type { ChatView } from "./serializers";

/** CONVERSATION as the bot BOTUSERID sees it: the other party of a private chat loaded (from DB, the executor in use). */
export async function chatViewFor(db: Db, conversation: ConversationRow, botUserId: number): Promise<ChatView> {
  const otherId = otherPartyId(conversation, botUserId);
  return { conversation, other: otherId === null ? null : ((await findUserById(db, otherId)) ?? null) };
}

/** A person by Bot API id or @username, as Bot API user_id/chat_id parameters give them. */
export async function findPerson(app: App, ref: number | string): Promise<UserRow | undefined> {
  const user =
    typeof ref === "number" ? await findUserById(app.db, accountIdOf(ref)) : await findUserByUsername(app.db, ref);
  return reachable(user);
}

const reachable = (user: UserRow | undefined) => (user && !user.disabled_at && !user.is_system ? user : undefined);

/** The person REF and their private chat with BOTUSERID if it exists: by Bot API id one statement (every send to a person). */
async function findPersonAndChat(
  app: App,
  ref: number | string,
  botUserId: number,
): Promise<{ person: UserRow | undefined; chat: ConversationRow | undefined }> {
  if (typeof ref === "number") {
    const found = await findUserWithPrivateChat(app.db, accountIdOf(ref), botUserId);
    const person = reachable(found?.user);
    return { person, chat: person && found!.chat };
  }
  const person = await findPerson(app, ref);
  return { person, chat: person && (await findPrivateChat(app.db, botUserId, person.id)) };
}

/** A person the bot ME may write to, else the Bot API's refusal. */
function checkPerson(person: UserRow | undefined, me: UserRow): asserts person is UserRow {
  if (!person) throw chatNotFound();
  if (person.id === me.id) throw chatNotFound();
  if (person.is_bot) throw forbiddenBot("bot can't send messages to bots");
}

/**
 * resolveChat for a person named by Bot API id (REF > 0), read with DB: a send reads it in its
 * own transaction, where a read costs less than on its own, with what the send needs of the
 * chat's members (AUDIENCE: the two while current members, and a block between them).
 * Undefined when the two have no chat yet (resolveChat opens it, in a transaction of its own).
 */
async function findPersonChat(
  db: Db,
  me: UserRow,
  ref: number,
): Promise<{ view: ChatView; audience: SendAudience } | undefined> {
  const found = await findUserWithPrivateChatForSend(db, accountIdOf(ref), me.id);
  const person = reachable(found?.user);
  checkPerson(person, me);
  const { chat, active, blocked } = found!;
  if (!chat) return undefined;
  const members: ChatMember[] = [];
  if (active.other) members.push({ user_id: me.id, is_bot: me.is_bot });
  if (active.user) members.push({ user_id: person.id, is_bot: person.is_bot });
  return { view: { conversation: chat, other: person, self: me }, audience: { members, blocked } };
}

/** Where SendAccessCache keeps the bot ME's check of the chat with the person REF. */
const personChatKey = (me: UserRow, ref: number) => `bot:${me.id}:${ref}`;

/**
 * PostgreSQL: the bot ME's plain text send to the person REF, as one statement where the check
 * of their chat is kept (sendInOneStatement): the chat as sent to, with the stored row.
 * Undefined, with nothing written, where the send must take the usual way (findPersonChatForSend
 * in a transaction).
 */
export async function sendToPersonInOneStatement(
  app: App,
  me: UserRow,
  ref: number,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  opts: StoreOptions,
): Promise<{ view: ChatView; row: MessageRow } | undefined> {
  const sent = await sendInOneStatement<PersonChat>(app, personChatKey(me, ref), me.id, input, opts);
  return sent && { view: { conversation: sent.conversation, other: sent.access.other, self: me }, row: sent.row };
}

/** What findPersonChat finds that a later send may reuse: all but the bot's own account (each call's `me`). */
interface PersonChat {
  conversation: SendChat;
  other: UserRow;
  audience: SendAudience;
}

/**
 * findPersonChat in SCOPE (a send's transaction), cached between the bot's sends to the person
 * (SendAccessCache): the next send reads the cache stamp, not the chat. Refusals and a missing
 * chat are read every time.
 */
export async function findPersonChatForSend(
  app: App,
  scope: Scope,
  me: UserRow,
  ref: number,
): Promise<{ view: ChatView; audience: SendAudience } | undefined> {
  const found = await sendAccessOf(app).through(
    scope,
    personChatKey(me, ref),
    async (): Promise<PersonChat | undefined> => {
      const found = await findPersonChat(scope.db, me, ref);
      return found && { conversation: found.view.conversation, other: found.view.other!, audience: found.audience };
    },
    ({ conversation, other, audience }) => [conversation, other, audience, audience.members, ...audience.members],
  );
  return (
    found && { view: { conversation: found.conversation, other: found.other, self: me }, audience: found.audience }
  );
}

/**
 * Resolves `chat_id` for the calling bot: a negative id is a group the bot is in; a positive
 * id or @username is a person, whose private chat with the bot is created when missing
 * (blocks, the person's "who may message me" and "bots may write first" settings still apply,
 * and a bot opens at most limits.botNewChatsPerHour chats an hour this way). Methods that only read
 * or change an existing chat pass CREATE false: for them a person never met is "chat not found".
 */
export async function resolveChat(ctx: BotContext, name = "chat_id", create = true): Promise<ChatView> {
  const ref = ctx.params.chatRef(name)!;
  const { app, me } = ctx;
  if (typeof ref === "number" && ref < 0) {
    const conversation = await findConversationById(app.db, -ref);
    if (!conversation || conversation.type !== "group") throw chatNotFound();
    const member = await getMember(app.db, conversation.id, me.id);
    if (!member) throw chatNotFound();
    if (member.role === "kicked") throw forbiddenBot("bot was kicked from the group chat");
    if (!isActive(member)) throw forbiddenBot("bot is not a member of the group chat");
    return { conversation, other: null, self: me };
  }
  const { person, chat: existing } = await findPersonAndChat(app, ref, me.id);
  checkPerson(person, me);
  // a block between the two is enforced by sending (see blockedByUser), not by reading the chat
  if (existing) return { conversation: existing, other: person, self: me };
  if (!create) throw chatNotFound();
  const may = await botMayWriteFirst(app.db, me.id, person.id);
  if (may === "blocked") throw blockedByUser();
  if (may === "refused") throw forbiddenBot("bot can't initiate conversation with a user");
  const budget = await consumeNewChatBudget(app, me.id);
  if (!budget.allowed) throw botError(429, `Too Many Requests: retry after ${budget.retryAfter}`, budget.retryAfter);
  const { conversation } = await ensurePrivateChat(app, me.id, person.id);
  return { conversation, other: person, self: me };
}
