import { groupReactions } from "../../domain/chats/reactions";
import type { Db } from "../../db";
import type { UserRow } from "../../domain/users/table";
import type { ConversationRow, MemberRow, MessageRow } from "../../domain/chats/table";
import {
  chatListItem,
  findChatListConversations,
  findChatListPeople,
  findMessagesByIds,
  type ChatListConversation,
  type ChatListItem,
  type ChatListPage,
  type ChatListRow,
  type ChatListUser,
  type LastMessageRef,
} from "../../domain/chats/chat-list";
import { defineService, type App } from "../../app";
import { VersionedCache } from "../../cache/by-version";
import { fromJson } from "../../domain/chats/validate";
import {
  allowsRevoting,
  myPollVotes,
  pollOf,
  pollTallies,
  type PollTally,
  type StoredPoll,
} from "../../domain/chats/polls";
import { isActive, membersAndReads, otherPartyId, rightsOf, type OtherParty } from "../../domain/chats/access";
import { compiledByIds, precompiled } from "../../db/compiled";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";
import { shownPreview } from "../../domain/links/preview";

/** Keys of a message's `extra` JSON that the Client API also shows at the top level. */
const EXTRA_KEYS = ["caption", "location", "venue", "dice", "contact"] as const;

/**
 * A chat poll as the Client API shows it, with the counts of the stored votes. MINE (the
 * viewer's options) is known when the answer is for one person (history, their vote) and left
 * out of what every member gets alike (live events). A quiz's answer shows once the viewer
 * answered or the poll closed.
 */
function serializeChatPoll(poll: StoredPoll, tally: PollTally | undefined, mine: number[] | undefined) {
  const revealed = poll.type === "quiz" && (poll.is_closed || (mine !== undefined && mine.length > 0));
  return {
    id: poll.id,
    question: poll.question,
    questionEntities: poll.question_entities ?? [],
    options: poll.options.map((o, i) => ({
      index: i,
      text: o.text,
      entities: o.text_entities ?? [],
      voterCount: tally?.counts[i] ?? 0,
    })),
    totalVoterCount: tally?.voters ?? 0,
    isClosed: poll.is_closed,
    isAnonymous: poll.is_anonymous,
    type: poll.type,
    allowsMultipleAnswers: poll.allows_multiple_answers,
    allowsRevoting: allowsRevoting(poll),
    correctOptionId: revealed ? (poll.correct_option_id ?? null) : null,
    explanation: revealed ? (poll.explanation ?? null) : null,
    myVotes: mine,
  };
}

/** What a message shows of its sender (a full account row, or the chat list's joined columns). */
type SenderRow = Pick<UserRow, "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "is_system">;

const senderOf = (user: SenderRow | undefined) =>
  user
    ? {
        id: user.cuid,
        username: user.username,
        displayName: user.display_name,
        avatarUrl: user.avatar_url,
        isBot: user.is_bot === 1,
        isSystem: user.is_system === 1,
      }
    : { id: null, username: "deleted", displayName: "Deleted account", avatarUrl: null, isBot: false, isSystem: false };

// compiled once per number of senders (db/compiled.ts)
const usersByIdsQuery = compiledByIds((db, ids) => db.selectFrom("users").selectAll().where("id", "in", ids));

async function usersById(db: Db, ids: number[], known: SenderRow[] = []): Promise<Map<number, SenderRow>> {
  const found = new Map<number, SenderRow>(known.map((u) => [u.id, u]));
  const unique = [...new Set(ids)].filter((id) => !found.has(id));
  if (unique.length === 0) return found;
  const rows = await usersByIdsQuery(db, unique);
  for (const u of rows) found.set(u.id, u);
  return found;
}

interface RenderOptions {
  /** the rows were just written: nobody has reacted to them yet, so reactions are not read */
  fresh?: boolean;
  /** account rows the caller holds (a send's sender, the chat list's senders): not loaded again */
  known?: SenderRow[];
}

/**
 * Messages as the Client API shows them (also the `message` of realtime events, which the
 * Bot API side reuses for bot-sent messages). Loads senders, replied-to messages and
 * reactions in a few batched queries (reactions only of messages whose version moved);
 * `fresh`: the rows were just written, so nobody has reacted to them yet and the reactions
 * query is spared; `viewerId`: the answer is for this person alone (their own poll votes are
 * shown).
 */
export async function serializeMessages(
  db: Db,
  conversation: Pick<ConversationRow, "id" | "cuid">,
  rows: MessageRow[],
  opts: RenderOptions = {},
) {
  return renderMessages(db, rows, () => conversation, opts);
}

interface RenderOptions {
  fresh?: boolean;
  viewerId?: number;
  /** the app clock's time: polls past their close_date show closed */
  now?: number;
}

const reactionsQuery = compiledByIds((db, ids) =>
  db
    .selectFrom("message_reactions")
    .innerJoin("users", "users.id", "message_reactions.user_id")
    .select(["message_reactions.message_id", "message_reactions.emoji", "users.cuid as userId"])
    .where("message_reactions.message_id", "in", ids)
    .orderBy("message_reactions.created_at")
    .orderBy("message_reactions.user_id"),
);

/** The reactions to messages IDS (one statement, none for no ids), by message, in the order they were set. */
async function reactionsOf(db: Db, ids: number[]): Promise<Map<number, Array<{ emoji: string; userId: string }>>> {
  const byMessage = new Map<number, Array<{ emoji: string; userId: string }>>();
  if (ids.length === 0) return byMessage;
  const rows = await reactionsQuery(db, ids);
  for (const r of rows) {
    const list = byMessage.get(r.message_id);
    if (list) list.push(r);
    else byMessage.set(r.message_id, [r]);
  }
  return byMessage;
}

/**
 * Renders ROWS (of any conversations, CONVERSATION OF each) in a fixed number of statements:
 * replied-to messages, the senders and the reactions, one batched query each (none for what
 * the caller already knows).
 */
async function renderMessages(
  db: Db,
  rows: MessageRow[],
  conversationOf: (row: MessageRow) => Pick<ConversationRow, "id" | "cuid">,
  opts: RenderOptions,
) {
  const replyKeys = new Map<number, Set<number>>();
  for (const r of rows) {
    const cid = conversationOf(r).id;
    if (r.reply_to_seq !== null) replyKeys.set(cid, (replyKeys.get(cid) ?? new Set()).add(r.reply_to_seq));
  }
  const replies = replyKeys.size
    ? await db
        .selectFrom("messages")
        .selectAll()
        .where((eb) =>
          eb.or(
            [...replyKeys].map(([cid, seqs]) => eb.and([eb("conversation_id", "=", cid), eb("seq", "in", [...seqs])])),
          ),
        )
        .where("deleted_at", "is", null)
        .execute()
    : [];
  const replyByKey = new Map(replies.map((r) => [`${r.conversation_id}:${r.seq}`, r]));
  const users = await usersById(db, [...rows.map((r) => r.sender_id), ...replies.map((r) => r.sender_id)], opts.known);
  // a reaction raises its message's version (trigger message_reactions_version_insert): a message
  // still at version 0 has none, so a page of such messages reads no reactions
  const reacted = opts.fresh ? [] : rows.filter((r) => r.version !== 0);
  const reactionRowsByMessage = await reactionsOf(
    db,
    reacted.map((r) => r.id),
  );

  const tallies = await pollTallies(db, rows);
  const mine =
    opts.viewerId !== undefined && tallies.size > 0
      ? await myPollVotes(db, [...tallies.keys()], opts.viewerId)
      : undefined;

  return rows.map((m) => {
    const conversation = conversationOf(m);
    const reply = m.reply_to_seq !== null ? replyByKey.get(`${conversation.id}:${m.reply_to_seq}`) : undefined;
    const poll = pollOf(m, opts.now);
    return messageShape(m, conversation, users.get(m.sender_id), {
      reply: reply && { row: reply, senderUsername: senderOf(users.get(reply.sender_id)).username },
      reactions: groupReactions(reactionRowsByMessage.get(m.id) ?? []),
      poll: poll ? serializeChatPoll(poll, tallies.get(m.id), mine ? (mine.get(m.id) ?? []) : undefined) : undefined,
    });
  });
}

/** What a message shows besides its own row: each read by renderMessages (none for a message just sent). */
interface MessageParts {
  reply?: { row: MessageRow; senderUsername: string };
  reactions: ReturnType<typeof groupReactions>;
  poll?: ReturnType<typeof serializeChatPoll>;
}

/** The Client API shape of message M, from its row, its sender and PARTS. */
function messageShape(
  m: MessageRow,
  conversation: Pick<ConversationRow, "cuid">,
  sender: SenderRow | undefined,
  parts: MessageParts,
): Record<string, unknown> {
  const extra = fromJson<Record<string, unknown>>(m.extra);
  const reply = parts.reply?.row;
  const out: Record<string, unknown> = {
    id: m.cuid,
    messageId: m.seq,
    conversationId: conversation.cuid,
    kind: m.kind,
    content: m.content,
    entities: fromJson<unknown[]>(m.entities) ?? [],
    media: fromJson<unknown[]>(m.media) ?? [],
    replyMarkup: fromJson(m.reply_markup),
    invoice: fromJson(m.invoice),
    extra,
    system: fromJson(m.system),
    sender: senderOf(sender),
    replyToId: reply ? reply.cuid : null,
    replyTo: reply
      ? {
          id: reply.cuid,
          messageId: reply.seq,
          content: reply.content.slice(0, 200),
          sender: { username: parts.reply!.senderUsername },
        }
      : null,
    forwardedFrom: fromJson(m.forwarded_from),
    reactions: parts.reactions,
    pinned: m.pinned === 1,
    clientMessageId: m.client_message_id,
    createdAt: toIso(m.created_at),
    editedAt: m.edited_at === null ? null : toIso(m.edited_at),
  };
  if (extra) for (const k of EXTRA_KEYS) if (extra[k] !== undefined) out[k] = extra[k];
  // its sender protected it: the app offers no forward, copy or save
  if (extra?.protect_content === true) out.protectedContent = true;
  if (m.link_preview !== null) {
    const preview = shownPreview(m.link_preview);
    if (preview) out.linkPreview = preview;
  }
  if (parts.poll) {
    out.poll = parts.poll;
    // the stored copy carries no counts: only the shaped poll above is shown
    delete extra!.poll;
  }
  return out;
}

/**
 * A message a send has just written (ROW, by SENDER), shaped without a statement or a promise:
 * nobody has reacted to it yet and it replies to nothing and holds no poll, so nothing else is
 * read for it. Undefined for any other message (serializeMessage then reads what it shows).
 */
export function freshMessageShape(
  conversation: Pick<ConversationRow, "cuid">,
  row: MessageRow,
  sender: SenderRow,
): ClientMessage | undefined {
  if (row.reply_to_seq !== null || row.sender_id !== sender.id || pollOf(row)) return undefined;
  return messageShape(row, conversation, sender, { reactions: [] });
}

export async function serializeMessage(
  db: Db,
  conversation: Pick<ConversationRow, "id" | "cuid">,
  row: MessageRow,
  opts: RenderOptions = {},
) {
  return (await serializeMessages(db, conversation, [row], opts))[0]!;
}

export type ClientMessage = Awaited<ReturnType<typeof serializeMessage>>;

type ChatOfViewer = { conversationId: number; viewerId: number };
/** A private chat's other party, with their membership's role and read mark (the chat's read receipt). */
const otherPartyQuery = precompiled((db, p: ChatOfViewer) =>
  db
    .selectFrom("conversation_members")
    .innerJoin("users", "users.id", "conversation_members.user_id")
    .selectAll("users")
    .select(["conversation_members.role as member_role", "conversation_members.last_read_seq as member_read_seq"])
    .where("conversation_members.conversation_id", "=", p.conversationId)
    .where("conversation_members.user_id", "!=", p.viewerId),
);
const myMembershipQuery = precompiled((db, p: ChatOfViewer) =>
  db
    .selectFrom("conversation_members")
    .selectAll()
    .where("conversation_id", "=", p.conversationId)
    .where("user_id", "=", p.viewerId),
);

/**
 * A conversation as the Client API shows it to one member. A private chat is titled and
 * pictured by the other party.
 */
export async function serializeConversation(
  db: Db,
  conversation: ConversationRow,
  viewerId: number,
  member?: MemberRow,
) {
  return (await conversationWithOther(db, conversation, viewerId, member)).conversation;
}

/**
 * serializeConversation, with the account row of a private chat's other party it read (which
 * a page of the chat's messages then need not load again as a sender), or was given as READ
 * (requireMembershipWithOtherByCuid).
 */
export async function conversationWithOther(
  db: Db,
  conversation: ConversationRow,
  viewerId: number,
  member?: MemberRow,
  read?: { other: OtherParty | undefined },
) {
  const chat = { conversationId: conversation.id, viewerId };
  const other = conversation.type !== "private" ? undefined : read ? read.other : (await otherPartyQuery(db, chat))[0];
  const me = member ?? (await myMembershipQuery(db, chat))[0];
  // a private chat's two memberships are in hand: who is in it, and how far the other has read
  const { members, othersReadSeq } =
    conversation.type === "private"
      ? {
          members: Number(isActive(me)) + Number(isActive(other && { role: other.member_role })),
          othersReadSeq: other && isActive({ role: other.member_role }) ? other.member_read_seq : 0,
        }
      : await membersAndReads(db, conversation.id, viewerId);
  return {
    conversation: { ...conversationView(conversation, me, other, members), othersReadMessageId: othersReadSeq },
    other,
  };
}

/** A conversation as one member sees it, from rows already loaded (OTHER: a private chat's other party). */
function conversationView(
  conversation: Pick<
    ConversationRow,
    "cuid" | "type" | "title" | "description" | "photo_url" | "created_at" | "last_message_at"
  >,
  me: Pick<MemberRow, "role" | "rights" | "last_read_seq"> | undefined,
  other: Pick<UserRow, "cuid" | "username" | "display_name" | "avatar_url" | "is_bot"> | undefined,
  members: number,
) {
  const otherUser = other ? serializePublicUser(other) : null;
  return {
    id: conversation.cuid,
    conversationId: conversation.cuid,
    type: conversation.type,
    title: conversation.type === "private" ? (otherUser?.displayName ?? "Deleted account") : conversation.title,
    description: conversation.description,
    photoUrl: conversation.type === "private" ? (otherUser?.avatarUrl ?? null) : conversation.photo_url,
    otherUser,
    memberCount: members,
    myRole: me?.role ?? null,
    myRights: me ? rightsOf(me) : {},
    lastReadMessageId: me?.last_read_seq ?? 0,
    createdAt: toIso(conversation.created_at),
    lastMessageAt: conversation.last_message_at === null ? null : toIso(conversation.last_message_at),
  };
}

/** Most last messages kept per App, as JSON (≈ 0.5–2 KB each): the oldest kept goes first. */
const MAX_CACHED_SHAPES = 5_000;

/**
 * The versions a last message's JSON is made from: its ref's (what the page read of the
 * message: see LastMessageRef) and its chat's (conversations.version, raised when the profile
 * of anyone in the chat changes: the senders shown).
 */
const messageVersion = (ref: LastMessageRef, chatVersion: number) => `${ref.version}:${chatVersion}`;

/**
 * The chat list's last messages as the Client API shows them, as JSON, kept by message id with
 * the versions they were made from (messageVersion), which change with whatever they show, by
 * any process or node: a kept one whose versions differ is made again.
 */
export class MessageShapes {
  readonly #kept: VersionedCache<string, string>;

  constructor(max = MAX_CACHED_SHAPES) {
    this.#kept = new VersionedCache(max);
  }

  get(ref: LastMessageRef, chatVersion: number): string | undefined {
    return this.#kept.get(ref.id, messageVersion(ref, chatVersion));
  }

  keep(ref: LastMessageRef, chatVersion: number, json: string): void {
    this.#kept.keep(ref.id, messageVersion(ref, chatVersion), json);
  }

  get size(): number {
    return this.#kept.size;
  }
}

/**
 * What the chat list shows of a chat to one member, as JSON: HEAD, the object's start up to the
 * other party, CREATED, ROLE and RIGHTS (values: the member's role and rights), all made from
 * the chat's version; ITEM, the whole chat as last written for the member with the page's row
 * it was written from (OF: the last message's versions, the counters and the member's read
 * mark and unread count) and the last message it shows, written again when one moved.
 */
interface ChatHead {
  /** the chat's cuid (its last message shows it too) */
  cuid: string;
  head: string;
  created: string;
  role: string;
  rights: string;
  item: KeptItem | null;
}

interface KeptItem {
  json: string;
  of: ChatListRow;
  last: LastMessageRef | null;
}

const sameRef = (a: LastMessageRef | null, b: LastMessageRef | null): boolean =>
  a === b || (a !== null && b !== null && a.id === b.id && a.version === b.version);

/**
 * Whether chat R of a page (at the chat version ITEM was written for) shows what ITEM shows:
 * compared on the row's own fields, so a page whose chats are all kept makes nothing.
 */
const sameShown = (item: KeptItem, r: ChatListRow, searched: ChatListPage["searched"]): boolean => {
  const a = item.of;
  return (
    a.last_message_at === r.last_message_at &&
    a.member_count === r.member_count &&
    a.unread_count === r.unread_count &&
    a.my_last_read_seq === r.my_last_read_seq &&
    a.has_hidden === r.has_hidden &&
    // a member who hid messages sees the newest they see, searched; anyone else the chat's last
    (r.has_hidden === 1
      ? sameRef(item.last, searched?.get(r.id) ?? null)
      : a.lm_id === r.lm_id && a.lm_version === r.lm_version)
  );
};

/** Most chats kept per App, by membership (≈ 1.5 KB each with the item). */
const MAX_CACHED_HEADS = 10_000;

/**
 * The App's kept chat-list pieces: last messages as JSON (MessageShapes) and chats' heads by
 * membership and chat version (a private chat is titled by its other party, and the role and
 * rights are the member's: both differ per member).
 */
export class ChatListCache {
  readonly messages: MessageShapes;
  readonly heads: VersionedCache<ChatHead>;

  constructor(max: { messages?: number; heads?: number } = {}) {
    this.messages = new MessageShapes(max.messages);
    this.heads = new VersionedCache(max.heads ?? MAX_CACHED_HEADS);
  }
}

const chatListCacheService = defineService("clientapi:chat-list-kept", () => new ChatListCache());

/** The App's kept chat-list pieces. */
export const chatListCacheOf = (app: App): ChatListCache => app.services.get(chatListCacheService);

/**
 * VIEWER's chat list as the Client API shows it, as the JSON of each chat in the page's order:
 * each with its last message and the viewer's unread count. Each chat's view and each last
 * message are JSON kept by the versions the page read (ChatListCache): making the list again on
 * every page (objects, then JSON.stringify) cost more than its statement. A chat whose numbers (the viewer's own parts, the counters, the last message's
 * versions) are those its kept JSON was written from is that JSON, the very string, compared
 * on the page's row as read; the others are written again from kept parts. What is not kept
 * is read (the chats, the accounts they show, the messages with their replied-to messages and
 * reactions: one statement each, none when all is kept) and made once.
 */
export async function chatListTexts(
  db: Db,
  kept: ChatListCache,
  viewer: number,
  page: ChatListPage,
): Promise<string[]> {
  const { rows, searched } = page;
  const texts: Array<string | undefined> = new Array(rows.length);
  let changed: number[] | undefined;
  for (let n = 0; n < rows.length; n++) {
    const r = rows[n]!;
    const item = kept.heads.get(r.mid, Number(r.version))?.item;
    if (item && sameShown(item, r, searched)) texts[n] = item.json;
    else (changed ??= []).push(n);
  }
  if (changed) await writeChanged(db, kept, viewer, page, changed, texts);
  // a chat gone between the page and the reading of its columns is left out
  return changed ? texts.filter((t) => t !== undefined) : (texts as string[]);
}

/**
 * The JSON array of chats TEXTS (chatListTexts). The kept texts are flat strings:
 * JavaScriptCore joins them without copying until the answer is written, then copies each
 * once (a string of many small pieces costs more).
 */
export function jsonArrayOf(texts: readonly string[]): string {
  let out = "[";
  for (const text of texts) {
    if (out.length > 1) out += ",";
    out += text;
  }
  return `${out}]`;
}

/** VIEWER's chat list as the JSON of its array (chatListTexts, joined). */
export const chatListJson = async (db: Db, kept: ChatListCache, viewer: number, page: ChatListPage): Promise<string> =>
  jsonArrayOf(await chatListTexts(db, kept, viewer, page));

/** Writes the chats CHANGED (indexes of PAGE's rows) into TEXTS from kept parts, reading and making what is missing. */
async function writeChanged(
  db: Db,
  kept: ChatListCache,
  viewer: number,
  page: ChatListPage,
  changed: number[],
  texts: Array<string | undefined>,
) {
  const items = changed.map((n) => chatListItem(page, page.rows[n]!));
  const heads: Array<ChatHead | undefined> = [];
  const messages: Array<string | undefined> = [];
  let missing = false;
  for (const i of items) {
    const head = kept.heads.get(i.memberId, i.version);
    const message = i.lastMessage ? kept.messages.get(i.lastMessage, i.version) : undefined;
    heads.push(head);
    messages.push(message);
    if (!head || (i.lastMessage && message === undefined)) missing = true;
  }
  if (missing) await makeMissing(db, kept, viewer, items, heads, messages);
  for (const [k, i] of items.entries()) {
    const h = heads[k];
    if (!h) continue;
    h.item = { json: itemJson(h, i, messages[k]), of: page.rows[changed[k]!]!, last: i.lastMessage };
    texts[changed[k]!] = h.item.json;
  }
}

/** Chat I of a member's list as JSON, from its HEAD, the JSON of its last MESSAGE (undefined: none) and the page's numbers. */
const itemJson = (h: ChatHead, i: ChatListItem, message: string | undefined): string =>
  // join: one flat string (a template literal would leave a tree of its pieces)
  [
    h.head,
    ',"memberCount":',
    i.memberCount,
    ',"myRole":',
    h.role,
    ',"myRights":',
    h.rights,
    ',"lastReadMessageId":',
    i.member.last_read_seq,
    ',"createdAt":',
    h.created,
    ',"lastMessageAt":',
    i.lastMessageAt === null ? "null" : JSON.stringify(toIso(i.lastMessageAt)),
    ',"lastMessage":',
    message ?? "null",
    ',"unreadCount":',
    i.unreadCount,
    "}",
  ].join("");

/** Reads and makes the heads and last messages of ITEMS that HEADS and MESSAGES lack (keeping them), in place. */
async function makeMissing(
  db: Db,
  kept: ChatListCache,
  viewer: number,
  items: ChatListItem[],
  heads: Array<ChatHead | undefined>,
  messages: Array<string | undefined>,
) {
  const chats = new Map(
    (
      await findChatListConversations(
        db,
        items.filter((_, n) => !heads[n]).map((i) => i.memberId),
      )
    ).map((c) => [c.mid, c]),
  );
  const rows = await findMessagesByIds(
    db,
    items.filter((i, n) => i.lastMessage && messages[n] === undefined).map((i) => i.lastMessage!.id),
  );
  const others = [...chats.values()].map((c) => otherPartyId(c, viewer)).filter((id) => id !== null);
  const people = await findChatListPeople(db, new Set([...others, ...rows.map((r) => r.sender_id)]));
  const byId = new Map(people.map((p) => [p.id, p]));
  const cuids = new Map<number, string>();
  for (const [n, i] of items.entries()) {
    let head = heads[n];
    const chat = chats.get(i.memberId);
    if (!head && chat) {
      const other = otherPartyId(chat, viewer);
      head = chatHead(chat, other === null ? undefined : byId.get(other));
      kept.heads.keep(i.memberId, i.version, head);
      heads[n] = head;
    }
    if (head) cuids.set(i.conversationId, head.cuid);
  }
  const shown = rows.filter((m) => cuids.has(m.conversation_id));
  const made = await renderMessages(
    db,
    shown,
    (m) => ({ id: m.conversation_id, cuid: cuids.get(m.conversation_id)! }),
    {
      known: people,
    },
  );
  const madeById = new Map(shown.map((row, n) => [row.id, { json: JSON.stringify(made[n]) }]));
  for (const [n, i] of items.entries()) {
    if (!i.lastMessage || messages[n] !== undefined) continue;
    const m = madeById.get(i.lastMessage.id);
    // a message gone between the page and the reading of its row shows as no message
    if (m) kept.messages.keep(i.lastMessage, i.version, m.json);
    messages[n] = m?.json ?? "null";
  }
}

/** A chat's head (see ChatHead) for the member it was read for; OTHER: a private chat's other party (undefined when gone). */
function chatHead(chat: ChatListConversation, other: ChatListUser | undefined): ChatHead {
  // the chat as the member sees it, of which the read mark and the counters are left out here
  const view = conversationView({ ...chat, last_message_at: null }, { ...chat, last_read_seq: 0 }, other, 0);
  const head = JSON.stringify({
    id: view.id,
    conversationId: view.conversationId,
    type: view.type,
    title: view.title,
    description: view.description,
    photoUrl: view.photoUrl,
    otherUser: view.otherUser,
  });
  return {
    cuid: chat.cuid,
    head: head.slice(0, -1),
    created: JSON.stringify(view.createdAt),
    role: JSON.stringify(view.myRole),
    rights: JSON.stringify(view.myRights),
    item: null,
  };
}

/** A member as the members list shows it. */
export function serializeMember(member: Pick<MemberRow, "role" | "rights" | "joined_at">, user: UserRow) {
  return {
    user: serializePublicUser(user),
    role: member.role,
    rights: rightsOf(member),
    joinedAt: toIso(member.joined_at),
  };
}
