import type { ExpressionBuilder, Generated, Selectable } from "kysely";

export type ConversationType = "private" | "group";
export type MemberRole = "creator" | "administrator" | "member" | "left" | "kicked";
/** roles of people who are in the chat now */
export const ACTIVE_ROLES: readonly MemberRole[] = ["creator", "administrator", "member"];

/**
 * WHERE COLUMN is one of ACTIVE_ROLES, spelled as equalities: SQLite runs `role IN (?, ?, ?)`
 * by filling a temporary table on every execution (more than the rest of a two-member lookup
 * costs), the ORs it tests in place.
 */
export const isActiveRole =
  (column: "role" | "m.role" | "cm.role") =>
  // any: the helper serves queries over conversation_members under either name
  (eb: ExpressionBuilder<any, any>) =>
    eb.or(ACTIVE_ROLES.map((role) => eb(column, "=", role)));

export interface ConversationsTable {
  id: Generated<number>;
  cuid: string;
  type: ConversationType;
  title: string | null;
  /** a group's description, 0 to 255 characters (null: none) */
  description: string | null;
  photo_url: string | null;
  /** "minUserId:maxUserId" for private chats (one chat per pair); null for groups */
  private_key: string | null;
  invite_code: string | null;
  /** who made the current invite link: a join by it is checked as that person's direct add */
  invite_by: number | null;
  created_by: number;
  /** the last seq handed out; the next message gets last_seq + 1 */
  last_seq: Generated<number>;
  last_message_at: number | null;
  /** newest activity (creation or last message): the chat list's sort key */
  activity_at: number;
  /** people in the chat now (ACTIVE_ROLES), kept by triggers on conversation_members */
  member_count: Generated<number>;
  /** the newest message not deleted for everyone (kept by triggers on messages) */
  last_message_id: number | null;
  /** one more on every change of what the chat list shows of the chat itself (a trigger) */
  version: Generated<number>;
  /** one more on every change or removal of any of the chat's messages (triggers): names the last message's shape with its id */
  last_message_version: Generated<number>;
  /** one more when a message is stored below the newest (a trigger): with the above, names every page of the history */
  history_version: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface ConversationMembersTable {
  id: Generated<number>;
  conversation_id: number;
  user_id: number;
  role: MemberRole;
  /** JSON object of administrator rights (Bot API can_* flags) */
  rights: string | null;
  /** who made this member an administrator (they may change or revoke it); null otherwise */
  promoted_by: number | null;
  joined_at: number;
  last_read_seq: Generated<number>;
  /** messages after last_read_seq that this member sees and did not send, kept by triggers */
  unread_count: Generated<number>;
  /** the chat's activity_at, copied by triggers: the chat list's order per member (an index) */
  activity_at: Generated<number>;
  /** 1 once the member hid a message of the chat (a trigger; never lowered): the chat list then searches what they see */
  has_hidden: Generated<number>;
  /** start label of the deep link that opened a private chat with a bot */
  start_label: string | null;
  updated_at: number;
}

export interface MessagesTable {
  id: Generated<number>;
  cuid: string;
  conversation_id: number;
  /** increasing per conversation: the Bot API message_id and the Client API messageId */
  seq: number;
  sender_id: number;
  kind: Generated<"user" | "system">;
  content: Generated<string>;
  /** JSON array of {type, offset, length, url?, ...} in UTF-16 units */
  entities: string | null;
  /** JSON array of attachments (spec `media` object) */
  media: string | null;
  reply_to_seq: number | null;
  /** JSON: inline keyboard / reply keyboard as the bot sent it */
  reply_markup: string | null;
  invoice: string | null;
  /** JSON object: location, venue, dice, poll, contact... */
  extra: string | null;
  /** JSON for system messages: {action, ...} */
  system: string | null;
  forwarded_from: string | null;
  client_message_id: string | null;
  /** JSON LinkPreviewState (domain/links/preview.ts) of the text's first link; null when it has none */
  link_preview: string | null;
  pinned: Generated<number>;
  created_at: number;
  edited_at: number | null;
  deleted_at: number | null;
  /** one more on every change of the row (a trigger): with the id, names what the row holds */
  version: Generated<number>;
}

export interface MessageReactionsTable {
  message_id: number;
  user_id: number;
  emoji: string;
  created_at: number;
}

/** A person's vote in a poll sent into a chat (the poll itself is the message's extra.poll): one row per chosen option. */
export interface MessagePollVotesTable {
  message_id: number;
  user_id: number;
  /** 0-based index into the poll's options */
  option_index: number;
  created_at: number;
}

export interface MessageHiddenTable {
  message_id: number;
  user_id: number;
}

export type ConversationRow = Selectable<ConversationsTable>;
/**
 * A chat as a send knows it: without the columns every send moves (its last message, seq and
 * activity), which a kept access check (send-access.ts) would show as they were when it was read.
 */
export type SendChat = Omit<
  ConversationRow,
  "last_seq" | "last_message_at" | "activity_at" | "updated_at" | "last_message_id" | "last_message_version"
>;
export type MemberRow = Selectable<ConversationMembersTable>;
export type MessageRow = Selectable<MessagesTable>;
/** A current member of a chat, as a message's transaction reads them (access.ts activeMembers). */
export type ChatMember = { user_id: number; is_bot: number };

export interface ChatsTables {
  conversations: ConversationsTable;
  conversation_members: ConversationMembersTable;
  messages: MessagesTable;
  message_reactions: MessageReactionsTable;
  message_hidden: MessageHiddenTable;
  message_poll_votes: MessagePollVotesTable;
}
