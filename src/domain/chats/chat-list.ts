import type { ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { ShapedQuery, splitPrefixedRow } from "../../db/compiled";
import { decodeCursor, pageOf } from "../../lib/paging";
import { literalLimit } from "../posts/keyset";
import {
  ACTIVE_ROLES,
  type ConversationMembersTable,
  type ConversationRow,
  type ConversationsTable,
  type MemberRow,
  type MessageRow,
} from "./table";

/** The chat list query's outer tables: the membership `m` and its chat `c`. */
type Outer = Database & { m: ConversationMembersTable; c: ConversationsTable };

/** One chat of the viewer's chat list, with everything the list shows of it. */
export interface ChatListItem {
  conversation: ConversationRow;
  /** the viewer's membership */
  member: MemberRow;
  /** the newest message the viewer sees (not deleted, not hidden for them) */
  lastMessage: MessageRow | null;
  /** messages from others after the viewer's read mark */
  unreadCount: number;
  /** people in the chat now */
  memberCount: number;
  /** private chats: the other party's account id (null for groups or when it is gone) */
  otherUserId: number | null;
}

const MEMBER_COLUMNS = [
  "id",
  "conversation_id",
  "user_id",
  "role",
  "rights",
  "joined_at",
  "last_read_seq",
  "start_label",
  "updated_at",
] as const;
const MESSAGE_COLUMNS = [
  "id",
  "cuid",
  "conversation_id",
  "seq",
  "sender_id",
  "kind",
  "content",
  "entities",
  "media",
  "reply_to_seq",
  "reply_markup",
  "invoice",
  "extra",
  "system",
  "forwarded_from",
  "client_message_id",
  "pinned",
  "created_at",
  "edited_at",
  "deleted_at",
] as const;

/** Messages of the outer query's chat `c` that VIEWER sees: not deleted, not hidden for them. */
const visibleMessages = (eb: ExpressionBuilder<Outer, "c" | "m">, viewer: number) =>
  eb
    .selectFrom("messages as x")
    .whereRef("x.conversation_id", "=", "c.id")
    .where("x.deleted_at", "is", null)
    .where((w) =>
      w.not(
        w.exists(
          w
            .selectFrom("message_hidden as h")
            .select("h.message_id")
            .whereRef("h.message_id", "=", "x.id")
            .where("h.user_id", "=", viewer),
        ),
      ),
    );

/**
 * A page of the chat list in one statement: the viewer's chats by newest activity, each with
 * its last visible message (joined), unread count (the member's counter column), member count
 * and the other party of a private chat (correlated subqueries, each an index lookup).
 */
const chatPages = new ShapedQuery(
  (db: Db, v: { viewer: number; t: number; id: number }, shape: { cursor: boolean; limit: number }) => {
    let q = db
      .selectFrom("conversation_members as m")
      .innerJoin("conversations as c", "c.id", "m.conversation_id")
      .leftJoin("messages as lm", (j) =>
        j.on((eb) =>
          eb(
            "lm.id",
            "=",
            visibleMessages(eb as unknown as ExpressionBuilder<Outer, "c" | "m">, v.viewer)
              .select("x.id")
              .orderBy("x.seq", "desc")
              .limit(1),
          ),
        ),
      )
      .selectAll("c")
      .select(MEMBER_COLUMNS.map((col) => `m.${col} as my_${col}` as const))
      .select(MESSAGE_COLUMNS.map((col) => `lm.${col} as lm_${col}` as const))
      .select((eb) => [
        // kept by triggers on every message, hide and read (see the unread_counter migration)
        "m.unread_count as unread_count",
        eb
          .selectFrom("conversation_members as cm")
          .select(eb.fn.countAll<number>().as("n"))
          .whereRef("cm.conversation_id", "=", "c.id")
          .where("cm.role", "in", ACTIVE_ROLES)
          .as("member_count"),
        eb
          .selectFrom("conversation_members as om")
          .select("om.user_id")
          .whereRef("om.conversation_id", "=", "c.id")
          .where("om.user_id", "!=", v.viewer)
          .limit(1)
          .as("other_user_id"),
      ])
      .where("m.user_id", "=", v.viewer)
      .where("m.role", "in", ACTIVE_ROLES);
    if (shape.cursor)
      q = q.where((eb) =>
        eb.or([eb("c.activity_at", "<", v.t), eb.and([eb("c.activity_at", "=", v.t), eb("c.id", "<", v.id)])]),
      );
    return q
      .orderBy("c.activity_at", "desc")
      .orderBy("c.id", "desc")
      .limit(literalLimit(shape.limit + 1));
  },
  (s) => `${s.cursor ? 1 : 0}:${s.limit}`,
);

/** A page of VIEWER's chats, newest activity first (one statement). */
export async function listChats(
  db: Db,
  viewerId: number,
  cursorRaw: string | undefined,
  limit: number,
): Promise<{ items: ChatListItem[]; nextCursor: string | null }> {
  const cursor = decodeCursor(cursorRaw);
  const rows = await chatPages.execute(
    db,
    { cursor: cursor !== null, limit },
    { viewer: viewerId, t: cursor?.t ?? 0, id: cursor?.id ?? 0 },
  );
  const page = pageOf(rows, limit, (c) => ({ t: c.activity_at, id: c.id }));
  const items = page.items.map((row): ChatListItem => {
    const { prefixed: message, rest } = splitPrefixedRow<MessageRow, Record<string, unknown>>(row, "lm_");
    const { prefixed: member, rest: chat } = splitPrefixedRow<MemberRow, Record<string, unknown>>(rest, "my_");
    const { unread_count, member_count, other_user_id, ...conversation } = chat;
    return {
      conversation: conversation as unknown as ConversationRow,
      member,
      lastMessage: message.id === null ? null : message,
      unreadCount: Number(unread_count ?? 0),
      memberCount: Number(member_count ?? 0),
      otherUserId: other_user_id === null || other_user_id === undefined ? null : Number(other_user_id),
    };
  });
  return { items, nextCursor: page.nextCursor };
}
