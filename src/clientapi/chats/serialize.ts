import { groupReactions } from "../../domain/chats/reactions";
import type { Db } from "../../db";
import type { UserRow } from "../../domain/users/table";
import type { ConversationRow, MemberRow, MessageRow } from "../../domain/chats/table";
import { findMessagesByIds, type ChatListItem, type LastMessageRef } from "../../domain/chats/chat-list";
import { defineService, type App } from "../../app";
import { KeptByVersion } from "../../lib/kept-by-version";
import { fromJson } from "../../domain/chats/validate";
import {
  allowsRevoting,
  myPollVotes,
  pollOf,
  pollTallies,
  type PollTally,
  type StoredPoll,
} from "../../domain/chats/polls";
import { membersAndReads, rightsOf } from "../../domain/chats/access";
import { precompiled } from "../../db/compiled";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";

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

// a single message (a send, its live event) has one sender: compiled once (db/compiled.ts)
const userByIdQuery = precompiled((db, p: { id: number }) => db.selectFrom("users").selectAll().where("id", "=", p.id));

async function usersById(db: Db, ids: number[], known: SenderRow[] = []): Promise<Map<number, SenderRow>> {
  const found = new Map<number, SenderRow>(known.map((u) => [u.id, u]));
  const unique = [...new Set(ids)].filter((id) => !found.has(id));
  if (unique.length === 0) return found;
  const rows =
    unique.length === 1
      ? await userByIdQuery(db, { id: unique[0]! })
      : await db.selectFrom("users").selectAll().where("id", "in", unique).execute();
  for (const u of rows) found.set(u.id, u);
  return found;
}

interface RenderOptions {
  /** the rows were just written: nobody has reacted to them yet, so reactions are not read */
  fresh?: boolean;
  /** account rows the caller holds (a send's sender, the chat list's senders): not loaded again */
  known?: SenderRow[];
  /** the caller knows which of the rows have reactions (ids): only theirs are read */
  reacted?: ReadonlySet<number>;
}

/**
 * Messages as the Client API shows them (also the `message` of realtime events, which the
 * Bot API side reuses for bot-sent messages). Loads senders, replied-to messages and
 * reactions in a few batched queries; `fresh`: the rows were just written, so nobody has
 * reacted to them yet and the reactions query is spared; `viewerId`: the answer is for this
 * person alone (their own poll votes are shown).
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
}

/** The reactions to messages IDS (one statement, none for no ids), by message, in the order they were set. */
async function reactionsOf(db: Db, ids: number[]): Promise<Map<number, Array<{ emoji: string; userId: string }>>> {
  const byMessage = new Map<number, Array<{ emoji: string; userId: string }>>();
  if (ids.length === 0) return byMessage;
  const rows = await db
    .selectFrom("message_reactions")
    .innerJoin("users", "users.id", "message_reactions.user_id")
    .select(["message_reactions.message_id", "message_reactions.emoji", "users.cuid as userId"])
    .where("message_reactions.message_id", "in", ids)
    .orderBy("message_reactions.created_at")
    .orderBy("message_reactions.user_id")
    .execute();
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
  const reacted = opts.fresh ? [] : opts.reacted ? rows.filter((r) => opts.reacted!.has(r.id)) : rows;
  const reactionRowsByMessage = await reactionsOf(
    db,
    reacted.map((r) => r.id),
  );

  const tallies = await pollTallies(db, rows);
  const mine =
    opts.viewerId !== undefined && tallies.size > 0
      ? await myPollVotes(db, [...tallies.keys()], opts.viewerId)
      : undefined;

  const messages = rows.map((m) => {
    const conversation = conversationOf(m);
    const reply = m.reply_to_seq !== null ? replyByKey.get(`${conversation.id}:${m.reply_to_seq}`) : undefined;
    const extra = fromJson<Record<string, unknown>>(m.extra);
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
      sender: senderOf(users.get(m.sender_id)),
      replyToId: reply ? reply.cuid : null,
      replyTo: reply
        ? {
            id: reply.cuid,
            messageId: reply.seq,
            content: reply.content.slice(0, 200),
            sender: { username: senderOf(users.get(reply.sender_id)).username },
          }
        : null,
      forwardedFrom: fromJson(m.forwarded_from),
      reactions: groupReactions(reactionRowsByMessage.get(m.id) ?? []),
      pinned: m.pinned === 1,
      clientMessageId: m.client_message_id,
      createdAt: toIso(m.created_at),
      editedAt: m.edited_at === null ? null : toIso(m.edited_at),
    };
    if (extra) for (const k of EXTRA_KEYS) if (extra[k] !== undefined) out[k] = extra[k];
    const poll = pollOf(m);
    if (poll) {
      out.poll = serializeChatPoll(poll, tallies.get(m.id), mine ? (mine.get(m.id) ?? []) : undefined);
      // the stored copy carries no counts: only the shaped poll above is shown
      delete extra!.poll;
    }
    return out;
  });
  return messages;
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
  let other: UserRow | undefined;
  if (conversation.type === "private") {
    other = await db
      .selectFrom("conversation_members")
      .innerJoin("users", "users.id", "conversation_members.user_id")
      .selectAll("users")
      .where("conversation_members.conversation_id", "=", conversation.id)
      .where("conversation_members.user_id", "!=", viewerId)
      .executeTakeFirst();
  }
  const me =
    member ??
    (await db
      .selectFrom("conversation_members")
      .selectAll()
      .where("conversation_id", "=", conversation.id)
      .where("user_id", "=", viewerId)
      .executeTakeFirst());
  const { members, othersReadSeq } = await membersAndReads(db, conversation.id, viewerId);
  return { ...conversationView(conversation, me, other, members), othersReadMessageId: othersReadSeq };
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

/** Most last-message shapes kept per App (a few KB each): the oldest kept goes first. */
const MAX_KEPT_SHAPES = 5_000;

/**
 * The chat list's last messages as the Client API shows them, kept by message id with the
 * version of the row each was made from (messages.version, which a trigger raises on every
 * change of the row, by any process or node): a kept shape whose version differs is made again.
 * Only shapes that depend on their own row alone are kept: not a reply (the replied-to message
 * changes apart from it), not a poll (its counts change with every vote). The sender and the
 * reactions, which change apart from the row, are put in on every read.
 */
export class MessageShapes {
  readonly #kept: KeptByVersion<ClientMessage>;

  constructor(max = MAX_KEPT_SHAPES) {
    this.#kept = new KeptByVersion(max);
  }

  get(ref: LastMessageRef): ClientMessage | undefined {
    return this.#kept.get(ref.id, ref.version);
  }

  keep(row: MessageRow, shape: ClientMessage): void {
    if (row.reply_to_seq === null && pollOf(row) === null) this.#kept.keep(row.id, row.version, shape);
  }

  get size(): number {
    return this.#kept.size;
  }
}

const messageShapesService = defineService("clientapi:chat-message-shapes", () => new MessageShapes());

/** The App's kept last-message shapes. */
export const messageShapesOf = (app: App): MessageShapes => app.services.get(messageShapesService);

/**
 * The chat list as the Client API shows it: each chat with its last message and unread count.
 * Senders and other parties come joined with the page; last messages come from SHAPES, and only
 * those not kept are read (one statement) and made, with their replied-to messages; reactions
 * are read once for the page, and only when some last message has them.
 */
export async function serializeChatList(db: Db, shapes: MessageShapes, items: ChatListItem[]) {
  const byId = new Map(items.map((i) => [i.conversation.id, i.conversation]));
  const kept: Array<ClientMessage | undefined> = [];
  const missing: number[] = [];
  const senders: SenderRow[] = [];
  const reacted = new Set<number>();
  const reactedKept: number[] = [];
  for (const i of items) {
    const shape = i.lastMessage ? shapes.get(i.lastMessage) : undefined;
    kept.push(shape);
    if (!i.lastMessage) continue;
    if (shape) {
      if (i.lastMessageReacted) reactedKept.push(i.lastMessage.id);
      continue;
    }
    missing.push(i.lastMessage.id);
    // a private chat's other party is often the sender of a replied-to message too
    if (i.other) senders.push(i.other);
    if (i.lastSender) senders.push(i.lastSender);
    if (i.lastMessageReacted) reacted.add(i.lastMessage.id);
  }
  const rows = await findMessagesByIds(db, missing);
  const made = await renderMessages(db, rows, (m) => byId.get(m.conversation_id)!, { known: senders, reacted });
  const madeById = new Map<number, ClientMessage>();
  for (const [n, row] of rows.entries()) {
    shapes.keep(row, made[n]!);
    madeById.set(row.id, made[n]!);
  }
  const reactions = await reactionsOf(db, reactedKept);
  return items.map((i, n) => {
    const shape = kept[n];
    let lastMessage: ClientMessage | null = null;
    if (shape)
      // the kept shape with this read's sender and reactions, in their places
      lastMessage = {
        ...shape,
        sender: senderOf(i.lastSender ?? undefined),
        reactions: i.lastMessageReacted ? groupReactions(reactions.get(i.lastMessage!.id) ?? []) : [],
      };
    // a row changed or gone between the two statements shows as it is now (gone: as the page had no message)
    else if (i.lastMessage) lastMessage = madeById.get(i.lastMessage.id) ?? null;
    return {
      ...conversationView(
        i.conversation,
        i.member,
        i.conversation.type === "private" ? (i.other ?? undefined) : undefined,
        i.memberCount,
      ),
      lastMessage,
      unreadCount: i.unreadCount,
    };
  });
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
