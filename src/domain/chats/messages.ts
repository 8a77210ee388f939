import type { App } from "../../app";
import type { ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { fieldError, forbidden } from "../../lib/errors";
import { checkAlt } from "../../lib/alt-text";
import { newCuid } from "../../lib/ids";
import { groupReactions } from "./reactions";
import { toIso } from "../../lib/clock";
import { decodeCursor, encodeCursor, pageOf, type Cursor } from "../../lib/paging";
import { literalLimit } from "../posts/keyset";
import { isBlockedEitherWay } from "../relations/service";
import { findUserById } from "../users/service";
import {
  activeMemberIds,
  activeMembers,
  activeMembersAndBlock,
  chatNotFound,
  findMessageBySeq,
  hasRight,
  messageNotFound,
  otherPartyId,
  permissionDenied,
  requireChatForSendByCuid,
  requireMembership,
  requireVisibleMessage,
  type ChatForSend,
  type Membership,
  type SendAudience,
} from "./access";
import { publishMessageEvent } from "./notify";
import { insertMessageRow, insertMessageRowIfAccessKept, wipedMessage } from "./message-row";
import {
  parsePreviewState,
  previewPending,
  previewStateFor,
  queuePreview,
  type LinkPreviewState,
  type PreviewChoice,
} from "../links/preview";
import { inTransaction, type Scope } from "../../db/transaction";
import { ShapedQuery } from "../../db/compiled";
import type { ChatMember, ConversationRow, MemberRow, MessageRow, SendChat } from "./table";
import { sendAccessOf } from "./send-access";
import type { UserRow } from "../users/table";
import {
  checkClientMessageId,
  checkContent,
  checkEntities,
  checkMediaShape,
  fromJson,
  toJson,
  type MediaItem,
} from "./validate";
import { pick } from "../../lib/objects";
import { isRetryableConflict, isUniqueViolation } from "../../db/errors";
import { releaseFilesIn } from "../../media/references";

export interface SendMessageInput {
  conversationId: number;
  senderId: number;
  content?: string;
  entities?: unknown[];
  /** attachments; their files must already be checked by the surface (see checkMessageMedia) */
  media?: MediaItem[];
  /** inline / reply keyboard as the bot sent it */
  replyMarkup?: unknown;
  replyToSeq?: number | null;
  invoice?: unknown;
  extra?: Record<string, unknown> | null;
  forwardedFrom?: unknown;
  clientMessageId?: string | null;
  kind?: "user" | "system";
  system?: unknown;
  /** how the sender wants the text's link previewed (removed, another link, a bot's options) */
  linkPreview?: PreviewChoice;
}

/**
 * Whether the sender protected the message (the Bot API's protect_content, kept in its extra):
 * it cannot be forwarded, copied or saved.
 */
export const isProtectedMessage = (row: Pick<MessageRow, "extra">): boolean =>
  row.extra !== null &&
  row.extra.includes('"protect_content"') &&
  fromJson<Record<string, unknown>>(row.extra)?.protect_content === true;

const findByClientId = (db: Db, conversationId: number, senderId: number, clientMessageId: string) =>
  db
    .selectFrom("messages")
    .selectAll()
    .where("conversation_id", "=", conversationId)
    .where("sender_id", "=", senderId)
    .where("client_message_id", "=", clientMessageId)
    .executeTakeFirst();

/**
 * The chat's current members and, in a private chat, whether a block stands between the sender
 * and the other party (nobody writes across one, bots included: a person who blocked a bot
 * stops it): one statement for both there.
 */
async function membersAndBlock(
  db: Db,
  conversation: SendChat,
  senderId: number,
  kind: string,
): Promise<{ members: ChatMember[]; blocked: boolean }> {
  const other = kind === "user" ? otherPartyId(conversation, senderId) : null;
  if (other === null) return { members: await activeMembers(db, conversation.id), blocked: false };
  const { members, blocked } = await activeMembersAndBlock(db, conversation.id, senderId, other);
  // no current member to carry the answer (the sender left meanwhile): asked on its own
  return { members, blocked: blocked ?? (await isBlockedEitherWay(db, senderId, other)) };
}

/**
 * Posts a message as SENDER, who must be a member. Idempotent per sender + clientMessageId:
 * a repeated send answers the message stored the first time. Publishes `message:new` to
 * every member and emits the `message:created` hook after commit.
 */
export async function sendMessage(app: App, input: SendMessageInput): Promise<MessageRow> {
  const membership = await requireMembership(app.db, input.conversationId, input.senderId);
  return sendMessageIn(app, membership, input);
}

/**
 * sendMessage for the sender of a MEMBERSHIP the caller has just loaded (requireMembershipByCuid),
 * so the send does not load it again: storeMessage in a transaction of its own. A retry whose
 * clientMessageId was stored meanwhile (a concurrent retry) answers the stored message.
 */
export async function sendMessageIn(
  app: App,
  membership: Membership,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  opts: StoreOptions = {},
): Promise<MessageRow> {
  try {
    return await inTransaction(app.storage, (scope) => storeMessage(scope, app, membership, input, opts));
  } catch (err) {
    return await storedRepeatOf(app, err, membership.conversation.id, membership.member.user_id, input);
  }
}

/**
 * sendMessageIn for the chat the Client API names by CUID: the chat, with the check that the
 * sender is a current member of it (NOT_FOUND when not), is read in the send's transaction, where a read needs no read
 * transaction of its own (under a write load an autocommit read costs about twice the same read
 * inside); a private chat's two members and the block check come with it, so
 * the send reads no members. For sends that need nothing else of the chat first (no reply to
 * resolve, no files to check).
 */
export async function sendMessageByCuid(
  app: App,
  cuid: string,
  senderId: number,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  opts: StoreOptions = {},
): Promise<{ conversation: SendChat; row: MessageRow }> {
  if (app.storage.engine === "postgres") {
    const sent = await sendInOneStatement(app, `${senderId}:${cuid}`, senderId, input, opts);
    if (sent) return { conversation: sent.conversation, row: sent.row };
  }
  let conversation: SendChat | undefined;
  try {
    const row = await inTransaction(app.storage, async (scope) => {
      const found = await chatForSend(app, scope, cuid, senderId);
      conversation = found.conversation;
      const sending = { conversation, member: { user_id: senderId } };
      return storeMessage(scope, app, sending, input, { ...opts, audience: found.audience });
    });
    return { conversation: conversation!, row };
  } catch (err) {
    if (!conversation) throw err;
    return { conversation, row: await storedRepeatOf(app, err, conversation.id, senderId, input) };
  }
}

/**
 * PostgreSQL: a plain text send to a private chat whose access check SendAccessCache keeps
 * under ACCESS_KEY (the Client API's by sender and chat, the Bot API's by bot and person), as
 * one statement: the row's INSERT, which writes only while the check's cache stamp has not
 * moved, so it is its own transaction (no BEGIN, no stamp read, no COMMIT). Only where nothing
 * else would be written with it: no link to preview, no reply to check, and no in-transaction
 * listener with work (no other bot in the chat, nobody to push to: hooks.mayWriteWithin).
 * Undefined, with nothing written, where the send must take the usual way, which also gives
 * every refusal.
 */
export async function sendInOneStatement<Access extends { conversation: SendChat; audience?: SendAudience }>(
  app: App,
  accessKey: string,
  senderId: number,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  opts: StoreOptions,
): Promise<{ access: Access; conversation: SendChat; row: MessageRow } | undefined> {
  const kept = sendAccessOf(app).peek(accessKey);
  const access = kept?.value as Access | undefined;
  if (!access?.audience || access.audience.blocked) return undefined;
  if (opts.checkMember && !access.audience.members.some((m) => m.user_id === senderId)) return undefined;
  if ((input.kind ?? "user") !== "user" || input.replyToSeq != null) return undefined;
  let checked: ReturnType<typeof checkedInput>;
  try {
    checked = checkedInput(input);
  } catch {
    // refused the usual way (which also answers a repeated clientMessageId)
    return undefined;
  }
  if (asksForPreview(input, checked.content)) return undefined;
  const { conversation, audience } = access;
  const row = newMessageRow(conversation.id, senderId, input, checked, null, app.clock.now());
  const sender = opts.sender?.id === senderId ? opts.sender : undefined;
  const storing = { conversation, message: row, sender, members: audience.members };
  if (app.hooks.mayWriteWithin("message:storing", storing)) return undefined;
  let inserted: Awaited<ReturnType<typeof insertMessageRowIfAccessKept>>;
  try {
    inserted = await insertMessageRowIfAccessKept(app.db, row, kept!.stamp);
  } catch (err) {
    // a deadlock with another writer rolled the statement back: the usual way tries again
    if (isRetryableConflict(err)) return undefined;
    return { access, conversation, row: await storedRepeatOf(app, err, conversation.id, senderId, input) };
  }
  if (!inserted) return undefined;
  row.id = inserted.id;
  row.seq = inserted.seq;
  justStored.add(row);
  const announced = announceStored(app, conversation, row, sender, audience.members)();
  if (announced instanceof Promise) await announced;
  return { access, conversation, row };
}

/**
 * requireChatForSendByCuid, in SCOPE (a send's transaction), cached between sends
 * (SendAccessCache): a person's next send to the chat reads the cache stamp, not the chat.
 */
function chatForSend(app: App, scope: Scope, cuid: string, senderId: number): Promise<ChatForSend> {
  return sendAccessOf(app).through(
    scope,
    `${senderId}:${cuid}`,
    () => requireChatForSendByCuid(scope.db, cuid, senderId),
    ({ conversation, audience }) => [
      conversation,
      ...(audience ? [audience, audience.members, ...audience.members] : []),
    ],
  );
}

/** The message stored by a repeat that raced this send (the unique index messages_client_id refused it), else ERR again. */
async function storedRepeatOf(
  app: App,
  err: unknown,
  conversationId: number,
  senderId: number,
  input: Pick<SendMessageInput, "clientMessageId">,
): Promise<MessageRow> {
  if (typeof input.clientMessageId === "string" && isUniqueViolation(err)) {
    const existing = await findByClientId(app.db, conversationId, senderId, input.clientMessageId);
    if (existing) return existing;
  }
  throw err;
}

/** Rows storeMessage wrote (the objects it returned): just written, so nobody has reacted to them yet. */
const justStored = new WeakSet<MessageRow>();

/** True when ROW is the very object storeMessage returned for the message it wrote (not a repeat's stored row). */
export const isJustStored = (row: MessageRow): boolean => justStored.has(row);

/** Who posts where: a Membership, or only the sender's id when storeMessage checks the membership (StoreOptions.checkMember). */
export interface Sending {
  conversation: SendChat;
  member: Pick<MemberRow, "user_id">;
}

export interface StoreOptions {
  /**
   * the caller has not checked that the sender is a current member: it is checked against the
   * members the send reads anyway (NOT_FOUND when not), a statement fewer than a membership read
   */
  checkMember?: boolean;
  /** the caller already found `replyToSeq` among the messages the sender sees */
  replyChecked?: boolean;
  /** the sender's account row, when the caller holds it: the bots' updates and the live event then need not load it */
  sender?: UserRow;
  /** the chat's members and the block check, read by the caller in this transaction (requireChatForSendByCuid) */
  audience?: SendAudience;
}

/**
 * Posts a message in SCOPE, the caller's transaction: whatever else the caller writes there
 * commits or rolls back with it. Writes the seq and the row (whose insert moves the sender's
 * read mark: trigger messages_stored, migration 20261125040000_send_one_trigger), and runs the "message:storing" listeners in the same transaction (the bots' updates: a message is
 * never stored without them). Members see it live and "message:created" fires once SCOPE has
 * committed. A repeated clientMessageId answers the stored message when a check refuses the
 * send; a repeat that gets as far as the insert fails on the unique index (sendMessageIn
 * then answers the stored message, which was stored with its bot updates).
 */
export async function storeMessage(
  scope: Scope,
  app: App,
  membership: Sending,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  opts: StoreOptions = {},
): Promise<MessageRow> {
  const db = scope.db;
  const { conversation } = membership;
  const senderId = membership.member.user_id;
  const checked = checkedInput(input);
  const { kind, content, clientMessageId } = checked;
  // A repeated clientMessageId answers the stored message. It is looked up only when a check
  // or the write refuses the send (the unique index messages_client_id refuses a repeat), so
  // a first send, by far the usual case, spends no query on it.
  const storedRepeat = () =>
    clientMessageId ? findByClientId(db, conversation.id, senderId, clientMessageId) : Promise.resolve(undefined);
  let members: ChatMember[];
  try {
    // who sees it, read here rather than after the commit: inside the transaction a statement
    // is cheaper (no read transaction of its own), and the bots' hook learns there are none
    const found =
      opts.audience && kind === "user" ? opts.audience : await membersAndBlock(db, conversation, senderId, kind);
    if (opts.checkMember && !found.members.some((m) => m.user_id === senderId)) throw chatNotFound();
    if (found.blocked) throw forbidden("You cannot message this person");
    members = found.members;
    if (
      input.replyToSeq != null &&
      !opts.replyChecked &&
      !(await findMessageBySeq(db, conversation.id, input.replyToSeq))
    ) {
      throw fieldError("replyToId", "is not a message of this conversation");
    }
  } catch (err) {
    const existing = await storedRepeat();
    if (existing) return existing;
    throw err;
  }

  const now = app.clock.now();
  // no statement nor promise for the usual text without a link
  const linkPreview = asksForPreview(input, content)
    ? await previewStateFor(db, content, input.linkPreview ?? {}, now)
    : null;
  const row = newMessageRow(conversation.id, senderId, input, checked, linkPreview, now);
  // the chat's next seq is taken with the row (message-row.ts)
  const inserted = await insertMessageRow(db, row);
  if (!inserted) throw chatNotFound();
  row.id = inserted.id;
  row.seq = inserted.seq;
  justStored.add(row);
  if (previewPending(linkPreview)) await queuePreview(scope, { table: "messages", id: row.id }, linkPreview);
  const sender = opts.sender?.id === senderId ? opts.sender : undefined;
  const storing = app.hooks.emitWithin(scope, "message:storing", { conversation, message: row, sender, members });
  if (storing) await storing;
  scope.afterCommit(announceStored(app, conversation, row, sender, members));
  return row;
}

/** Whether a send of CONTENT has a link preview to decide (a choice given, or a link in it): no statement for the usual text. */
const asksForPreview = (input: Pick<SendMessageInput, "linkPreview">, content: string): boolean =>
  !!input.linkPreview || content.includes("://");

/** What storeMessage checks of INPUT before anything is read, as the row takes it. */
function checkedInput(input: Omit<SendMessageInput, "conversationId" | "senderId">) {
  const media = input.media === undefined ? [] : checkResolvedMedia(input.media);
  const kind = input.kind ?? "user";
  const hasBody = media.length > 0 || !!input.extra || !!input.invoice || kind === "system" || !!input.forwardedFrom;
  const content = checkContent(input.content ?? "", { allowEmpty: hasBody });
  const entities =
    input.entities === undefined || input.entities === null ? [] : checkEntities(input.entities, content);
  const clientMessageId = input.clientMessageId == null ? null : checkClientMessageId(input.clientMessageId);
  return { media, kind, content, entities, clientMessageId };
}

/** The row as a send returns it, made once: the insert reads its columns from it (message-row.ts). */
function newMessageRow(
  conversationId: number,
  senderId: number,
  input: Omit<SendMessageInput, "conversationId" | "senderId">,
  { media, kind, content, entities, clientMessageId }: ReturnType<typeof checkedInput>,
  linkPreview: LinkPreviewState | null,
  now: number,
): MessageRow {
  return {
    id: 0,
    cuid: newCuid(),
    conversation_id: conversationId,
    sender_id: senderId,
    kind,
    content,
    entities: entities.length ? JSON.stringify(entities) : null,
    media: media.length ? JSON.stringify(media) : null,
    reply_to_seq: input.replyToSeq ?? null,
    reply_markup: toJson(input.replyMarkup),
    invoice: toJson(input.invoice),
    extra: toJson(input.extra),
    system: toJson(input.system),
    forwarded_from: toJson(input.forwardedFrom),
    client_message_id: clientMessageId,
    link_preview: linkPreview && JSON.stringify(linkPreview),
    created_at: now,
    seq: 0,
    pinned: 0,
    edited_at: null,
    deleted_at: null,
    version: 0,
  };
}

/** What follows a stored ROW once it is durable: members see it live, then "message:created" fires. */
function announceStored(
  app: App,
  conversation: SendChat,
  row: MessageRow,
  sender: UserRow | undefined,
  members: readonly ChatMember[],
): () => unknown {
  const memberIds = members.map((m) => m.user_id);
  const created = () =>
    app.hooks.emit("message:created", { conversationId: conversation.id, messageId: row.id, senderId: row.sender_id });
  return () => {
    // no promise where nobody is shown it live (hooks.ts: listeners with nothing to do finish at once)
    const live = publishMessageEvent(app, conversation, row, "message:new", sender, memberIds);
    return live ? live.then(created) : created();
  };
}

/**
 * checkMediaShape of attachments a surface resolved (checkMessageMedia, the Bot API's files),
 * keeping the display renditions the server listed from the uploads: never read from a client.
 */
function checkResolvedMedia(media: MediaItem[]): MediaItem[] {
  return checkMediaShape(media).map((m, i) => {
    const renditions = media[i]!.renditions;
    return renditions?.length ? { ...m, renditions } : m;
  });
}

export interface EditMessageInput {
  conversationId: number;
  seq: number;
  editorId: number;
  content?: string;
  entities?: unknown[] | null;
  /** undefined keeps the buttons, null removes them */
  replyMarkup?: unknown;
  /** new attachments (checked by the surface, see checkMessageMedia): replaces the media; undefined keeps it */
  media?: MediaItem[];
  /** replaces the extra JSON (the attachment's flags); undefined keeps it */
  extra?: Record<string, unknown> | null;
  /** new descriptions of the attachments the message has, by index (empty or null removes one) */
  mediaAlts?: Array<string | null>;
  /** how the text's link is previewed now; undefined keeps the author's choice for the same link */
  linkPreview?: PreviewChoice;
}

/** Edits one's own message (text, entities, buttons, attachments). Publishes `message:edited`, emits the hook. */
export async function editMessage(app: App, input: EditMessageInput): Promise<MessageRow> {
  const db = app.db;
  const { conversation } = await requireMembership(db, input.conversationId, input.editorId);
  const message = await findMessageBySeq(db, conversation.id, input.seq);
  if (!message) throw messageNotFound();
  if (message.sender_id !== input.editorId || message.kind !== "user")
    throw permissionDenied("Only the author may edit a message");
  const patch: Partial<{
    content: string;
    entities: string | null;
    reply_markup: string | null;
    media: string | null;
    extra: string | null;
    link_preview: string | null;
    edited_at: number;
  }> = {};
  if (input.media !== undefined) {
    const media = checkResolvedMedia(input.media);
    patch.media = media.length ? JSON.stringify(media) : null;
  }
  if (input.mediaAlts !== undefined) {
    const media = fromJson<MediaItem[]>(patch.media ?? message.media) ?? [];
    if (input.mediaAlts.length > media.length)
      throw fieldError("mediaAlts", "must not have more items than the message's attachments");
    const alts = input.mediaAlts.map((alt, i) => checkAlt(alt, `mediaAlts.${i}`));
    patch.media = JSON.stringify(
      media.map((m, i) => {
        if (i >= alts.length) return m;
        const { alt: _old, ...rest } = m;
        return alts[i] === undefined ? rest : { ...rest, alt: alts[i] };
      }),
    );
  }
  if (input.extra !== undefined) patch.extra = toJson(input.extra);
  const hasMedia =
    (patch.media !== undefined ? patch.media !== null : message.media !== null) ||
    (patch.extra !== undefined ? patch.extra !== null : message.extra !== null) ||
    message.invoice !== null;
  if (input.content !== undefined) {
    const content = checkContent(input.content, { allowEmpty: hasMedia });
    const entities = input.entities ? checkEntities(input.entities, content) : [];
    patch.content = content;
    patch.entities = entities.length ? JSON.stringify(entities) : null;
  } else if (input.entities !== undefined) {
    const entities = input.entities ? checkEntities(input.entities, message.content) : [];
    patch.entities = entities.length ? JSON.stringify(entities) : null;
  }
  if (input.replyMarkup !== undefined) patch.reply_markup = toJson(input.replyMarkup);
  let linkPreview: LinkPreviewState | null = null;
  if (patch.content !== undefined || input.linkPreview !== undefined) {
    const content = patch.content ?? message.content;
    const previous = parsePreviewState(message.link_preview);
    linkPreview = await previewStateFor(db, content, input.linkPreview ?? {}, app.clock.now(), previous);
    patch.link_preview = linkPreview && JSON.stringify(linkPreview);
  }
  if (Object.keys(patch).length === 0) throw fieldError("content", "nothing to change");
  patch.edited_at = app.clock.now();
  const row = await inTransaction(app.storage, async (scope) => {
    const updated = await scope.db
      .updateTable("messages")
      .set(patch)
      .where("id", "=", message.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await queuePreview(scope, { table: "messages", id: message.id }, linkPreview);
    return updated;
  });
  await publishMessageEvent(app, conversation, row, "message:edited");
  await app.hooks.emit("message:edited", {
    conversationId: conversation.id,
    messageId: row.id,
    editorId: input.editorId,
  });
  return row;
}

/**
 * Deletes a message. For everyone: one's own message, or any message for a group
 * administrator with can_delete_messages; the text and files are wiped (the files themselves go
 * with the released-uploads cleanup unless used elsewhere). For me: hidden
 * from this member only.
 */
export async function deleteMessage(
  app: App,
  input: { conversationId: number; seq: number | string; actorId: number; forEveryone: boolean },
): Promise<void> {
  const db = app.db;
  const membership = await requireMembership(db, input.conversationId, input.actorId);
  const message = await requireVisibleMessage(db, input.conversationId, input.seq, input.actorId);
  const { conversation } = membership;
  if (!input.forEveryone) {
    await db
      .insertInto("message_hidden")
      .values({ message_id: message.id, user_id: input.actorId })
      .onConflict((oc) => oc.doNothing())
      .execute();
    app.hooks.publish({
      type: "message:deleted",
      to: [input.actorId],
      conversation: pick(conversation, "id", "cuid"),
      message: pick(message, "id", "cuid"),
    });
    return;
  }
  const own = message.sender_id === input.actorId;
  if (!own && !(conversation.type === "group" && hasRight(membership.member, "can_delete_messages"))) {
    throw permissionDenied("You may delete only your own messages for everyone");
  }
  await wipeMessageForEveryone(app, conversation, message);
}

/** Wipes MESSAGE's text and files for every member of CONVERSATION (its sender, a group admin, or moderation). */
export async function wipeMessageForEveryone(
  app: App,
  conversation: Pick<ConversationRow, "id" | "cuid">,
  message: Pick<MessageRow, "id" | "cuid" | "media" | "extra" | "invoice">,
): Promise<void> {
  // one transaction: a message is never left wiped with its reactions or votes still standing,
  // nor its files still marked in use
  await inTransaction(app.storage, async ({ db }) => {
    const now = app.clock.now();
    await db.updateTable("messages").set(wipedMessage(now)).where("id", "=", message.id).execute();
    await releaseFilesIn(db, [message.media, message.extra, message.invoice], now);
    await db.deleteFrom("message_reactions").where("message_id", "=", message.id).execute();
    await db.deleteFrom("message_poll_votes").where("message_id", "=", message.id).execute();
  });
  app.hooks.publish({
    type: "message:deleted",
    to: await activeMemberIds(app.db, conversation.id),
    conversation: pick(conversation, "id", "cuid"),
    message: pick(message, "id", "cuid"),
  });
}

/** Pins or unpins a message: either side of a private chat, administrators with can_pin_messages in groups. */
export async function setPinned(
  app: App,
  input: { conversationId: number; seq: number | string; actorId: number; pinned: boolean },
): Promise<MessageRow> {
  const db = app.db;
  const membership = await requireMembership(db, input.conversationId, input.actorId);
  if (membership.conversation.type === "group" && !hasRight(membership.member, "can_pin_messages"))
    throw permissionDenied("Only administrators may pin messages");
  const message = await requireVisibleMessage(db, input.conversationId, input.seq, input.actorId);
  const row = await db
    .updateTable("messages")
    .set({ pinned: input.pinned ? 1 : 0 })
    .where("id", "=", message.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await publishMessageEvent(app, membership.conversation, row, "message:edited");
  return row;
}

// one emoji (with modifiers / joiners), not free text
const EMOJI_RE =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[\u{1F3FB}-\u{1F3FF}\u200D\uFE0F\u20E3#*0-9])+$/u;

/** Sets (or with null removes) USER's one reaction on a message. Returns the message's reactions. */
export async function setReaction(
  app: App,
  input: { conversationId: number; seq: number | string; userId: number; emoji: string | null },
) {
  const db = app.db;
  const { conversation } = await requireMembership(db, input.conversationId, input.userId);
  const message = await requireVisibleMessage(db, input.conversationId, input.seq, input.userId);
  if (input.emoji === null) {
    await db
      .deleteFrom("message_reactions")
      .where("message_id", "=", message.id)
      .where("user_id", "=", input.userId)
      .execute();
  } else {
    if (
      input.emoji.length > 16 ||
      !EMOJI_RE.test(input.emoji) ||
      !/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(input.emoji)
    ) {
      throw fieldError("emoji", "must be a single emoji");
    }
    await db
      .insertInto("message_reactions")
      .values({ message_id: message.id, user_id: input.userId, emoji: input.emoji, created_at: app.clock.now() })
      .onConflict((oc) =>
        oc.columns(["message_id", "user_id"]).doUpdateSet({ emoji: input.emoji!, created_at: app.clock.now() }),
      )
      .execute();
  }
  const rows = await db
    .selectFrom("message_reactions")
    .innerJoin("users", "users.id", "message_reactions.user_id")
    .select(["message_reactions.emoji", "users.cuid as userId"])
    .where("message_id", "=", message.id)
    .orderBy("message_reactions.created_at")
    .orderBy("message_reactions.user_id")
    .execute();
  const reactions = groupReactions(rows);
  app.hooks.publish({
    type: "message:reactions",
    to: await activeMemberIds(db, conversation.id),
    conversation: pick(conversation, "id", "cuid"),
    message: pick(message, "id", "cuid"),
    reactions,
  });
  if (input.emoji !== null)
    await app.hooks.emit("message:reacted", {
      conversationId: conversation.id,
      messageId: message.id,
      userId: input.userId,
      emoji: input.emoji,
    });
  return { message, reactions };
}

/** Moves USER's read marker forward to SEQ (never back, never past the last message). */
export async function markRead(
  app: App,
  input: { conversationId: number; userId: number; seq: number },
): Promise<number> {
  const db = app.db;
  const { conversation, member } = await requireMembership(db, input.conversationId, input.userId);
  if (!Number.isSafeInteger(input.seq) || input.seq < 0)
    throw fieldError("messageId", "must be a message of this conversation");
  const seq = Math.min(input.seq, conversation.last_seq);
  if (seq <= member.last_read_seq) return member.last_read_seq;
  await inTransaction(app.storage, async (scope) => {
    await scope.db
      .updateTable("conversation_members")
      .set({ last_read_seq: seq })
      .where("id", "=", member.id)
      .where("last_read_seq", "<", seq)
      .execute();
  });
  const [user, message] = await Promise.all([
    findUserById(db, input.userId),
    findMessageBySeq(db, conversation.id, seq),
  ]);
  app.hooks.publish({
    type: "chat:read",
    to: await activeMemberIds(db, conversation.id),
    conversation: pick(conversation, "id", "cuid"),
    reader: user ? pick(user, "id", "cuid") : null,
    seq,
    message: message ? pick(message, "id", "cuid") : null,
  });
  return seq;
}

/** Shows "typing…" to the other members; nothing is stored. */
export async function typing(app: App, input: { conversationId: number; userId: number }): Promise<void> {
  const { conversation } = await requireMembership(app.db, input.conversationId, input.userId);
  const user = await findUserById(app.db, input.userId);
  const others = (await activeMemberIds(app.db, conversation.id)).filter((id) => id !== input.userId);
  if (user && others.length)
    app.hooks.publish({
      type: "chat:typing",
      to: others,
      conversation: pick(conversation, "id", "cuid"),
      user: pick(user, "id", "cuid", "username"),
    });
}

/** Forwards a message into another chat of the actor's, showing its original author. */
export async function forwardMessage(
  app: App,
  input: {
    fromConversationId: number;
    seq: number | string;
    actorId: number;
    toConversationId: number;
    clientMessageId?: string | null;
  },
): Promise<MessageRow> {
  const db = app.db;
  await requireMembership(db, input.fromConversationId, input.actorId);
  const source = await requireVisibleMessage(db, input.fromConversationId, input.seq, input.actorId);
  if (source.kind !== "user" || source.invoice !== null)
    throw fieldError("messageId", "this message cannot be forwarded");
  if (isProtectedMessage(source))
    throw permissionDenied("This message is protected by its sender: it cannot be forwarded or saved");
  let forwardedFrom = source.forwarded_from ? JSON.parse(source.forwarded_from) : null;
  if (!forwardedFrom) {
    const author = await findUserById(db, source.sender_id);
    forwardedFrom = {
      sender: author
        ? { id: author.cuid, username: author.username, displayName: author.display_name, isBot: author.is_bot === 1 }
        : null,
      messageId: source.seq,
      date: toIso(source.created_at),
    };
  }
  return sendMessage(app, {
    conversationId: input.toConversationId,
    senderId: input.actorId,
    content: source.content,
    entities: source.entities ? JSON.parse(source.entities) : undefined,
    media: source.media ? JSON.parse(source.media) : undefined,
    extra: source.extra ? JSON.parse(source.extra) : null,
    forwardedFrom,
    clientMessageId: input.clientMessageId ?? null,
  });
}

/** Filter: messages VIEWER has not deleted "for me". */
const notHiddenFor = (viewerId: number) => (eb: ExpressionBuilder<Database, "messages">) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom("message_hidden")
        .select("message_id")
        .whereRef("message_hidden.message_id", "=", "messages.id")
        .where("message_hidden.user_id", "=", viewerId),
    ),
  );

type HistoryPage = { older: Cursor | null; newer: Cursor | null; limit: number };

/**
 * The statement of a page of a conversation's history for VIEWER: a walk of
 * messages_conversation_seq from the cursor (down from OLDER, or up from NEWER), skipping
 * deleted messages and those the viewer deleted for themselves (a probe of message_hidden's
 * key), stopping at LIMIT + 1 rows. Compiled once per direction and limit (db/compiled.ts).
 */
const historyPages = new ShapedQuery(
  (
    db: Db,
    v: { conversationId: number; viewerId: number; olderSeq: number; newerSeq: number },
    shape: { older: boolean; newer: boolean; limit: number },
  ) => {
    let q = db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "=", v.conversationId)
      .where("deleted_at", "is", null)
      .where(notHiddenFor(v.viewerId))
      .orderBy("seq", shape.newer ? "asc" : "desc")
      .limit(literalLimit(shape.limit + 1));
    if (shape.older) q = q.where("seq", "<", v.olderSeq);
    if (shape.newer) q = q.where("seq", ">", v.newerSeq);
    return q;
  },
  (shape) => `${shape.older ? "o" : ""}${shape.newer ? "n" : ""}${shape.limit}`,
);

const historyShape = (page: HistoryPage) => ({
  older: page.older !== null,
  newer: page.newer !== null,
  limit: page.limit,
});
const historyValues = (conversationId: number, viewerId: number, page: HistoryPage) => ({
  conversationId,
  viewerId,
  olderSeq: page.older?.t ?? 0,
  newerSeq: page.newer?.t ?? 0,
});

const historyPage = (db: Db, conversationId: number, viewerId: number, page: HistoryPage) =>
  historyPages.execute(db, historyShape(page), historyValues(conversationId, viewerId, page));

/** The statement historyPage runs, with its parameters (for the tests that read its plan). */
export const historyPageStatement = (db: Db, conversationId: number, viewerId: number, page: HistoryPage) =>
  historyPages.compiledWith(db, historyShape(page), historyValues(conversationId, viewerId, page));

/**
 * A page of the conversation's history visible to VIEWER around message REF (its shown id or
 * messageId), newest first: the message and up to half of LIMIT older ones, and the newer ones
 * after it, so a reader jumping to it (a search result) sees it with what was said around it.
 * The cursors go on either way as listHistory's do; newerCursor is null when the newest are in it.
 */
export async function listHistoryAround(
  app: App,
  membership: Membership,
  viewerId: number,
  ref: string,
  limit: number,
) {
  const conversationId = membership.conversation.id;
  const target = await requireVisibleMessage(app.db, conversationId, ref, viewerId);
  const olderLimit = Math.ceil(limit / 2);
  const newerLimit = Math.max(1, limit - olderLimit);
  // the target is the first of the older half: older than a cursor just above its seq
  const [olderRows, newerRows] = await Promise.all([
    historyPage(app.db, conversationId, viewerId, {
      older: { t: target.seq + 1, id: target.id },
      newer: null,
      limit: olderLimit,
    }),
    historyPage(app.db, conversationId, viewerId, {
      older: null,
      newer: { t: target.seq, id: target.id },
      limit: newerLimit,
    }),
  ]);
  const key = (m: MessageRow) => ({ t: m.seq, id: m.id });
  const older = pageOf(olderRows, olderLimit, key);
  const newer = pageOf(newerRows, newerLimit, key);
  return {
    items: [...newer.items.reverse(), ...older.items],
    olderCursor: older.nextCursor,
    newerCursor: newer.nextCursor,
  };
}

/**
 * A page of the conversation's history visible to VIEWER, newest first: the newest LIMIT, those
 * just older than BEFORE, or those just newer than AFTER (a reader paging back down). Each page
 * says where the history goes on: olderCursor / newerCursor, null where it ends.
 */
export async function listHistory(
  app: App,
  membership: Membership,
  viewerId: number,
  before: string | undefined,
  limit: number,
  after?: string,
) {
  if (before && after) throw fieldError("after", "cannot be combined with before");
  const older = decodeCursor(before, "before");
  const newer = decodeCursor(after, "after");
  const rows = await historyPage(app.db, membership.conversation.id, viewerId, { older, newer, limit });
  const key = (m: MessageRow) => ({ t: m.seq, id: m.id });
  const page = pageOf(rows, limit, key);
  if (!newer) {
    // a page of older messages has newer ones after it: the message it was asked before, at least
    const newest = page.items[0];
    const newerCursor = older ? (newest ? encodeCursor(key(newest)) : before!) : null;
    return { items: page.items, olderCursor: page.nextCursor, newerCursor };
  }
  const oldest = page.items[0];
  return {
    items: page.items.reverse(),
    olderCursor: oldest ? encodeCursor(key(oldest)) : after!,
    newerCursor: page.nextCursor,
  };
}
