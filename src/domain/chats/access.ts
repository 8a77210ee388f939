import type { Db } from "../../db";
import { AppError, notFound } from "../../lib/errors";
import { looksLikeCuid } from "../../lib/ids";
import { precompiled, precompiledNow, rowSplitter } from "../../db/compiled";
import { fromJson } from "./validate";
import { USER_ROW_COLUMNS, type UserRow } from "../users/table";
import { blockBetween, blockedEitherWayWithAny } from "../relations/service";
import {
  ACTIVE_ROLES,
  isActiveRole,
  type ChatMember,
  type ConversationRow,
  type SendChat,
  type MemberRow,
  type MessageRow,
} from "./table";

/** Administrator rights, named as the compatible bot API names them. */
export const ADMIN_RIGHTS = [
  "can_manage_chat",
  "can_delete_messages",
  "can_restrict_members",
  "can_invite_users",
  "can_pin_messages",
  "can_promote_members",
  "can_change_info",
] as const;
export type AdminRight = (typeof ADMIN_RIGHTS)[number];
export type Rights = Partial<Record<AdminRight, boolean>>;

export const chatNotFound = () => notFound("Conversation not found");
export const messageNotFound = () => notFound("Message not found");
export const permissionDenied = (message: string) => new AppError(403, "PERMISSION_DENIED", message);

/** The other party of a private chat, seen from USERID's side: its private_key names both ("minId:maxId"); null in a group. */
export function otherPartyId(
  conversation: Pick<ConversationRow, "type" | "private_key">,
  userId: number,
): number | null {
  if (conversation.type !== "private" || !conversation.private_key) return null;
  const [a, b] = conversation.private_key.split(":").map(Number) as [number, number];
  return a === userId ? b : a;
}

export const isActive = (member: Pick<MemberRow, "role"> | undefined | null): boolean =>
  !!member && (ACTIVE_ROLES as readonly string[]).includes(member.role);

/** Rights a member holds: all for the creator, the stored set for administrators, none otherwise. */
export function rightsOf(member: Pick<MemberRow, "role" | "rights">): Rights {
  if (member.role === "creator") return Object.fromEntries(ADMIN_RIGHTS.map((r) => [r, true]));
  if (member.role !== "administrator") return {};
  return fromJson<Rights>(member.rights) ?? {};
}

export const hasRight = (member: Pick<MemberRow, "role" | "rights">, right: AdminRight): boolean =>
  rightsOf(member)[right] === true;

// every chat request loads these: compiled once (db/compiled.ts)
const conversationByIdQuery = precompiled((db, p: { id: number }) =>
  db.selectFrom("conversations").selectAll().where("id", "=", p.id),
);
const conversationByCuidQuery = precompiled((db, p: { cuid: string }) =>
  db.selectFrom("conversations").selectAll().where("cuid", "=", p.cuid),
);
// a bot's send to a person finds their private chat: compiled once too
const privateChatQuery = precompiled((db, p: { key: string }) =>
  db.selectFrom("conversations").selectAll().where("private_key", "=", p.key),
);
const memberQuery = precompiled((db, p: { conversationId: number; userId: number }) =>
  db
    .selectFrom("conversation_members")
    .selectAll()
    .where("conversation_id", "=", p.conversationId)
    .where("user_id", "=", p.userId),
);
// every chat request by the chat's cuid: the chat and the member's row in one statement
const MEMBER_COLUMNS = Object.keys({
  id: 1,
  conversation_id: 1,
  user_id: 1,
  role: 1,
  rights: 1,
  promoted_by: 1,
  joined_at: 1,
  last_read_seq: 1,
  unread_count: 1,
  activity_at: 1,
  has_hidden: 1,
  start_label: 1,
  updated_at: 1,
} satisfies Record<keyof MemberRow, 1>) as (keyof MemberRow)[];
const MEMBER_PREFIX = "member__";
const membershipByCuidQuery = precompiled((db, p: { cuid: string; userId: number }) =>
  db
    .selectFrom("conversations")
    .innerJoin("conversation_members as m", "m.conversation_id", "conversations.id")
    .select(CONVERSATION_COLUMNS.map((c) => `conversations.${c}` as const))
    .select(MEMBER_COLUMNS.map((c) => `m.${c} as ${MEMBER_PREFIX}${c}` as `m.${typeof c}`))
    .where("conversations.cuid", "=", p.cuid)
    .where("m.user_id", "=", p.userId),
);
/** ConversationRow's columns: for statements that name what they select (rowSplitter). */
const CONVERSATION_COLUMNS = Object.keys({
  id: 1,
  cuid: 1,
  type: 1,
  title: 1,
  description: 1,
  photo_url: 1,
  private_key: 1,
  invite_code: 1,
  invite_by: 1,
  created_by: 1,
  last_seq: 1,
  last_message_at: 1,
  activity_at: 1,
  member_count: 1,
  version: 1,
  last_message_version: 1,
  history_version: 1,
  last_message_id: 1,
  created_at: 1,
  updated_at: 1,
} satisfies Record<keyof ConversationRow, 1>) as (keyof ConversationRow)[];
const membershipParts = rowSplitter<{ member: MemberRow; conversation: ConversationRow }>({
  member: [MEMBER_PREFIX, MEMBER_COLUMNS],
  conversation: ["", CONVERSATION_COLUMNS],
});
// a Client API send: the chat with the sender's membership check and, in a private chat, the
// other party's membership and a block between the two (requireChatForSendByCuid)
const SEND_PREFIX = "send__";
/**
 * The chats with USERID's membership (`m`) and, in a private chat, the other party's membership
 * (`o`) and account (`ou`; null columns without one).
 */
const chatsWithOtherParty = (db: Db, userId: number) =>
  db
    .selectFrom("conversations")
    .innerJoin("conversation_members as m", "m.conversation_id", "conversations.id")
    .leftJoin("conversation_members as o", (join) =>
      join
        .onRef("o.conversation_id", "=", "conversations.id")
        .on("conversations.type", "=", "private")
        .on("o.user_id", "<>", userId),
    )
    .leftJoin("users as ou", "ou.id", "o.user_id");
const chatForSendByCuidQuery = precompiledNow((db, p: { cuid: string; userId: number }) =>
  chatsWithOtherParty(db, p.userId)
    .innerJoin("users as mu", "mu.id", "m.user_id")
    .select(CONVERSATION_COLUMNS.map((c) => `conversations.${c}` as const))
    .select([
      "mu.is_bot as send__is_bot",
      "o.user_id as send__other_id",
      "o.role as send__other_role",
      "ou.is_bot as send__other_is_bot",
    ])
    // a probe per direction (one EXISTS with the pairs OR-ed costs several times as much)
    .select((eb) => blockedEitherWayWithAny(eb, p.userId, ["o.user_id"]).as("send__blocked"))
    .where("conversations.cuid", "=", p.cuid)
    .where("m.user_id", "=", p.userId)
    .where(isActiveRole("m.role")),
);
const chatForSendParts = rowSplitter<{
  conversation: ConversationRow;
  send: {
    is_bot: number;
    other_id: number | null;
    other_role: MemberRow["role"] | null;
    other_is_bot: number | null;
    blocked: unknown;
  };
}>({
  conversation: ["", CONVERSATION_COLUMNS],
  send: [SEND_PREFIX, ["is_bot", "other_id", "other_role", "other_is_bot", "blocked"]],
});
// a bot's send to a person: the person and their private chat with the bot in one statement
const CHAT_PREFIX = "chat__";
const userWithPrivateChat = (db: Db, p: { userId: number; key: string }) =>
  db
    .selectFrom("users")
    .leftJoin("conversations as c", (join) => join.on("c.private_key", "=", p.key))
    .select(USER_ROW_COLUMNS.map((c) => `users.${c}` as const))
    .select(CONVERSATION_COLUMNS.map((c) => `c.${c} as ${CHAT_PREFIX}${c}` as `c.${typeof c}`))
    .where("users.id", "=", p.userId)
    .where("users.deleted_at", "is", null);
const userWithPrivateChatQuery = precompiled(userWithPrivateChat);
// a send to the person: with both memberships in the chat and the block check (findUserWithPrivateChatForSend)
const userWithPrivateChatForSendQuery = precompiled((db, p: { userId: number; otherId: number; key: string }) =>
  userWithPrivateChat(db, p)
    .leftJoin("conversation_members as um", (join) =>
      join.onRef("um.conversation_id", "=", "c.id").onRef("um.user_id", "=", "users.id"),
    )
    .leftJoin("conversation_members as om", (join) =>
      join.onRef("om.conversation_id", "=", "c.id").on("om.user_id", "=", p.otherId),
    )
    .select(["um.role as send__role", "om.role as send__other_role"])
    .select((eb) =>
      eb
        .exists(eb.selectFrom("blocks").select("blocks.id").where(blockBetween(p.userId, p.otherId)))
        .as("send__blocked"),
    ),
);
const userWithPrivateChatParts = rowSplitter<{ user: UserRow; chat: ConversationRow }>({
  user: ["", USER_ROW_COLUMNS],
  chat: [CHAT_PREFIX, CONVERSATION_COLUMNS],
});
const userWithPrivateChatForSendParts = rowSplitter<{
  user: UserRow;
  chat: ConversationRow;
  send: { role: MemberRow["role"] | null; other_role: MemberRow["role"] | null; blocked: unknown };
}>({
  user: ["", USER_ROW_COLUMNS],
  chat: [CHAT_PREFIX, CONVERSATION_COLUMNS],
  send: [SEND_PREFIX, ["role", "other_role", "blocked"]],
});
const activeMemberIdsQuery = precompiled((db, p: { conversationId: number }) =>
  db
    .selectFrom("conversation_members")
    .select("user_id")
    .where("conversation_id", "=", p.conversationId)
    .where(isActiveRole("role")),
);

export const findConversationById = async (db: Db, id: number): Promise<ConversationRow | undefined> =>
  (await conversationByIdQuery(db, { id }))[0];

export const findConversationByCuid = async (db: Db, cuid: string): Promise<ConversationRow | undefined> =>
  (await conversationByCuidQuery(db, { cuid }))[0];

/** The key naming the private chat of two accounts: "minId:maxId" (unique). */
export const privateKey = (a: number, b: number): string => `${Math.min(a, b)}:${Math.max(a, b)}`;

/** The private chat of accounts A and B, if it exists. */
export const findPrivateChat = async (db: Db, a: number, b: number): Promise<ConversationRow | undefined> =>
  (await privateChatQuery(db, { key: privateKey(a, b) }))[0];

/**
 * The account USERID (not deleted) and its private chat with OTHERID, if there is one, in one
 * statement (findUserById then findPrivateChat).
 */
export async function findUserWithPrivateChat(
  db: Db,
  userId: number,
  otherId: number,
): Promise<{ user: UserRow; chat: ConversationRow | undefined } | undefined> {
  const [row] = await userWithPrivateChatQuery(db, { userId, key: privateKey(userId, otherId) });
  if (!row) return undefined;
  const { user, chat } = userWithPrivateChatParts(row);
  return { user, chat: chat.id == null ? undefined : chat };
}

/**
 * findUserWithPrivateChat for a send by OTHERID to USERID: also whether each of the two is a
 * current member of the chat and whether either blocks the other, which the send would read
 * next (one statement for what were two).
 */
export async function findUserWithPrivateChatForSend(
  db: Db,
  userId: number,
  otherId: number,
): Promise<
  | {
      user: UserRow;
      chat: ConversationRow | undefined;
      active: { user: boolean; other: boolean };
      blocked: boolean;
    }
  | undefined
> {
  const [row] = await userWithPrivateChatForSendQuery(db, { userId, otherId, key: privateKey(userId, otherId) });
  if (!row) return undefined;
  const { user, chat, send } = userWithPrivateChatForSendParts(row);
  return {
    user,
    chat: chat.id == null ? undefined : chat,
    active: {
      user: isActive(send.role && { role: send.role }),
      other: isActive(send.other_role && { role: send.other_role }),
    },
    // SQLite answers 0/1, PostgreSQL a boolean
    blocked: Boolean(send.blocked),
  };
}

/** The live (not deleted) messages of a conversation at these SEQS; any order. */
export const findMessagesBySeqs = (db: Db, conversationId: number, seqs: readonly number[]): Promise<MessageRow[]> =>
  seqs.length
    ? db
        .selectFrom("messages")
        .selectAll()
        .where("conversation_id", "=", conversationId)
        .where("seq", "in", seqs)
        .where("deleted_at", "is", null)
        .execute()
    : Promise.resolve([]);

export const getMember = async (db: Db, conversationId: number, userId: number): Promise<MemberRow | undefined> =>
  (await memberQuery(db, { conversationId, userId }))[0];

export interface Membership {
  conversation: ConversationRow;
  member: MemberRow;
}

/** USER's membership of a conversation already loaded; anyone but a current member gets NOT_FOUND. */
export async function membershipOf(
  db: Db,
  conversation: ConversationRow | undefined,
  userId: number,
): Promise<Membership> {
  if (!conversation) throw chatNotFound();
  const member = await getMember(db, conversation.id, userId);
  if (!isActive(member)) throw chatNotFound();
  return { conversation, member: member! };
}

/** The conversation with USER as a current member; anyone else gets NOT_FOUND, never its contents. */
export async function requireMembership(db: Db, conversationId: number, userId: number): Promise<Membership> {
  return membershipOf(db, await findConversationById(db, conversationId), userId);
}

/** Same as requireMembership, by the cuid the Client API shows (one statement). */
export async function requireMembershipByCuid(db: Db, cuid: string, userId: number): Promise<Membership> {
  const [row] = looksLikeCuid(cuid) ? await membershipByCuidQuery(db, { cuid, userId }) : [];
  if (!row) throw chatNotFound();
  const { member, conversation } = membershipParts(row);
  if (!isActive(member)) throw chatNotFound();
  return { conversation, member };
}

/** What a chat's page shows of a private chat's other party: their account as a sender, their role and read mark. */
export type OtherParty = Pick<UserRow, (typeof OTHER_PARTY_COLUMNS)[number]> & {
  member_role: MemberRow["role"];
  member_read_seq: number;
};
const OTHER_PARTY_COLUMNS = ["id", "cuid", "username", "display_name", "avatar_url", "is_bot", "is_system"] as const;

const OTHER_PREFIX = "other__";
const membershipWithOtherByCuidQuery = precompiled((db, p: { cuid: string; userId: number }) =>
  chatsWithOtherParty(db, p.userId)
    .select(CONVERSATION_COLUMNS.map((c) => `conversations.${c}` as const))
    .select(MEMBER_COLUMNS.map((c) => `m.${c} as ${MEMBER_PREFIX}${c}` as `m.${typeof c}`))
    .select(OTHER_PARTY_COLUMNS.map((c) => `ou.${c} as ${OTHER_PREFIX}${c}` as `ou.${typeof c}`))
    .select([`o.role as ${OTHER_PREFIX}member_role`, `o.last_read_seq as ${OTHER_PREFIX}member_read_seq`] as const)
    .where("conversations.cuid", "=", p.cuid)
    .where("m.user_id", "=", p.userId),
);
const membershipWithOtherParts = rowSplitter<{ member: MemberRow; conversation: ConversationRow; other: OtherParty }>({
  member: [MEMBER_PREFIX, MEMBER_COLUMNS],
  conversation: ["", CONVERSATION_COLUMNS],
  other: [OTHER_PREFIX, [...OTHER_PARTY_COLUMNS, "member_role", "member_read_seq"]],
});

/**
 * requireMembershipByCuid with, in a private chat, the other party (their account, role and
 * read mark; undefined without one), in the same statement.
 */
export async function requireMembershipWithOtherByCuid(
  db: Db,
  cuid: string,
  userId: number,
): Promise<Membership & { other: OtherParty | undefined }> {
  const [row] = looksLikeCuid(cuid) ? await membershipWithOtherByCuidQuery(db, { cuid, userId }) : [];
  if (!row) throw chatNotFound();
  const { member, conversation, other } = membershipWithOtherParts(row);
  if (!isActive(member)) throw chatNotFound();
  return { conversation, member, other: other.id === null ? undefined : other };
}

/** Who a message reaches, and whether a block stands between its sender and a private chat's other party. */
export interface SendAudience {
  members: ChatMember[];
  blocked: boolean;
}

/**
 * The conversation the Client API names by CUID when USER is a current member of it, else
 * NOT_FOUND, for a send (one statement). In a private chat it also tells the send its
 * audience: the two members (the other party while a current member) and whether either
 * blocks the other, which a send would read next (a group's members are read by the send).
 */
export function requireChatForSendByCuid(db: Db, cuid: string, userId: number): ChatForSend | Promise<ChatForSend> {
  if (!looksLikeCuid(cuid)) throw chatNotFound();
  // at once, without a promise, in a send's transaction on SQLite
  return chatForSendByCuidQuery(db, { cuid, userId }, ([row]) => chatForSendOf(row, userId));
}

/** What requireChatForSendByCuid answers. */
export interface ChatForSend {
  conversation: SendChat;
  audience?: SendAudience;
}

function chatForSendOf(row: object | undefined, userId: number): ChatForSend {
  if (!row) throw chatNotFound();
  const { conversation, send } = chatForSendParts(row);
  if (conversation.type !== "private") return { conversation };
  const members: ChatMember[] = [{ user_id: userId, is_bot: send.is_bot }];
  if (send.other_id !== null && isActive({ role: send.other_role! }))
    members.push({ user_id: send.other_id, is_bot: send.other_is_bot! });
  // SQLite answers 0/1, PostgreSQL a boolean
  return { conversation, audience: { members, blocked: Boolean(send.blocked) } };
}

export function requireGroup(conversation: ConversationRow): void {
  if (conversation.type !== "group")
    throw new AppError(400, "VALIDATION_ERROR", "This is not a group", {
      fieldErrors: { conversationId: ["is not a group"] },
    });
}

export function requireRight(membership: Membership, right: AdminRight, refusal: string): void {
  if (!hasRight(membership.member, right)) throw permissionDenied(refusal);
}

/** A message of the conversation by its seq (the Bot API message_id); deleted ones are gone. */
export const findMessageById = (db: Db, id: number): Promise<MessageRow | undefined> =>
  db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();

/** The seqs of a conversation's pinned live messages, the most recently pinned first. */
export async function pinnedSeqs(db: Db, conversationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("messages")
    .select("seq")
    .where("conversation_id", "=", conversationId)
    .where("pinned", "=", 1)
    .where("deleted_at", "is", null)
    .orderBy("seq", "desc")
    .execute();
  return rows.map((r) => r.seq);
}

export const findMessageBySeq = (db: Db, conversationId: number, seq: number): Promise<MessageRow | undefined> =>
  db
    .selectFrom("messages")
    .selectAll()
    .where("conversation_id", "=", conversationId)
    .where("seq", "=", seq)
    .where("deleted_at", "is", null)
    .executeTakeFirst();

/** A visible message by the id the Client API shows (cuid) or its integer messageId. */
export async function requireVisibleMessage(
  db: Db,
  conversationId: number,
  ref: string | number,
  viewerId: number,
): Promise<MessageRow> {
  let message: MessageRow | undefined;
  if (typeof ref === "number" || /^[0-9]{1,15}$/.test(ref))
    message = await findMessageBySeq(db, conversationId, Number(ref));
  else if (looksLikeCuid(ref))
    message = await db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "=", conversationId)
      .where("cuid", "=", ref)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
  if (!message) throw messageNotFound();
  const hidden = await db
    .selectFrom("message_hidden")
    .select("message_id")
    .where("message_id", "=", message.id)
    .where("user_id", "=", viewerId)
    .executeTakeFirst();
  if (hidden) throw messageNotFound();
  return message;
}

const activeMembersQuery = precompiled((db, p: { conversationId: number }) =>
  db
    .selectFrom("conversation_members as m")
    .innerJoin("users", "users.id", "m.user_id")
    .select(["m.user_id", "users.is_bot"])
    .where("m.conversation_id", "=", p.conversationId)
    .where(isActiveRole("m.role")),
);

/** The people currently in the conversation, each with whether the account is a bot's. */
export const activeMembers = (db: Db, conversationId: number): Promise<ChatMember[]> =>
  activeMembersQuery(db, { conversationId });

// a message to a private chat: its members and the block check between the two in one statement
const activeMembersBlockedQuery = precompiled((db, p: { conversationId: number; a: number; b: number }) =>
  db
    .selectFrom("conversation_members as m")
    .innerJoin("users", "users.id", "m.user_id")
    .select(["m.user_id", "users.is_bot"])
    .select((eb) => eb.exists(eb.selectFrom("blocks").select("id").where(blockBetween(p.a, p.b))).as("blocked"))
    .where("m.conversation_id", "=", p.conversationId)
    .where(isActiveRole("m.role")),
);

/**
 * activeMembers, and whether A and B block each other (either way, as isBlockedEitherWay), in
 * one statement; null for the block when the conversation has no current member to carry it.
 */
export async function activeMembersAndBlock(
  db: Db,
  conversationId: number,
  a: number,
  b: number,
): Promise<{ members: ChatMember[]; blocked: boolean | null }> {
  const rows = await activeMembersBlockedQuery(db, { conversationId, a, b });
  const members = rows.map((r) => ({ user_id: r.user_id, is_bot: r.is_bot }));
  // SQLite answers 0/1, PostgreSQL a boolean
  return { members, blocked: rows.length ? Boolean(rows[0]!.blocked) : null };
}

/** User ids of the people currently in the conversation. */
export async function activeMemberIds(db: Db, conversationId: number): Promise<number[]> {
  return (await activeMemberIdsQuery(db, { conversationId })).map((r) => r.user_id);
}

/**
 * Number of people in the conversation now (bots included), and the furthest any of them
 * but VIEWER has read (the "Read" mark on the viewer's own messages), in one statement.
 */
export async function membersAndReads(
  db: Db,
  conversationId: number,
  viewerId: number,
): Promise<{ members: number; othersReadSeq: number }> {
  const [row] = await membersAndReadsQuery(db, { conversationId, viewerId });
  return { members: Number(row!.n), othersReadSeq: Number(row!.read ?? 0) };
}

const membersAndReadsQuery = precompiled((db, p: { conversationId: number; viewerId: number }) =>
  db
    .selectFrom("conversation_members")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn
        .max<number | null>(eb.case().when("user_id", "!=", p.viewerId).then(eb.ref("last_read_seq")).end())
        .as("read"),
    ])
    .where("conversation_id", "=", p.conversationId)
    .where("role", "in", ACTIVE_ROLES),
);

/** Number of people in the conversation now (bots included). */
export async function memberCount(db: Db, conversationId: number): Promise<number> {
  const row = await db
    .selectFrom("conversation_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("conversation_id", "=", conversationId)
    .where("role", "in", ACTIVE_ROLES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
