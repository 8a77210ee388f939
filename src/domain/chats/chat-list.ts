import type { ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { compiledByIds, ShapedQuery } from "../../db/compiled";
import { decodeCursor, pageOf } from "../../lib/paging";
import { literalLimit } from "../posts/keyset";
import type { UserRow } from "../users/table";
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

/** What the chat list shows of a chat itself (read only when its kept view is missing or stale). */
export type ChatListConversation = Pick<
  ConversationRow,
  "id" | "cuid" | "type" | "title" | "description" | "photo_url" | "private_key" | "created_at"
>;
/** What the chat list shows of the viewer's membership. */
export type ChatListMember = Pick<MemberRow, "role" | "rights" | "last_read_seq">;
/** An account as the chat list shows it: a last message's sender, a private chat's other party. */
export type ChatListUser = Pick<
  UserRow,
  "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "is_system"
>;

/**
 * The last message of a chat as the list reads it: which message, which version of its row
 * (messages.version, one more on every change of the row, its reactions or its poll's votes)
 * and, for a reply, of the replied-to message's row (null: none, or gone), so its serialized
 * shape can be kept between reads; `findMessagesByIds` reads the rows of those not kept.
 */
export interface LastMessageRef {
  id: number;
  version: number;
  replyVersion: number | null;
}

/**
 * One chat of the viewer's chat list as a page names it: numbers only. What the list shows of
 * the chat itself and of its last message is kept by the versions here (clientapi/chats/serialize.ts);
 * the viewer's own parts (role, rights, read mark, unread count) and the counters are read on
 * every page.
 */
export interface ChatListItem {
  /** the viewer's membership (conversation_members.id) */
  memberId: number;
  conversationId: number;
  /**
   * conversations.version: one more on every change of the chat's own shown columns, of its
   * members (joined, removed) and of the profile of anyone in it (triggers; see the
   * chat_list_versions migration), i.e. of everything the chat's view and its last message's
   * sender show
   */
  version: number;
  activityAt: number;
  lastMessageAt: number | null;
  /** the viewer's membership */
  member: ChatListMember;
  /** the newest message the viewer sees (not deleted, not hidden for them) */
  lastMessage: LastMessageRef | null;
  /** messages from others after the viewer's read mark */
  unreadCount: number;
  /** people in the chat now */
  memberCount: number;
}

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
 * A page of the viewer's chats in one statement, newest activity first: each membership
 * carries its chat's activity (conversation_members.activity_at, kept by triggers) and the
 * (user_id, activity_at, conversation_id) index holds them in the list's order, so the page is
 * one range read of LIMIT rows (neither sorted nor read past the page). Each comes with its
 * last visible message (joined: the chat's last_message_id, kept by triggers, searched only
 * when the viewer hid that one), of which only ids and versions are read, the unread and
 * member counts (counter columns) and the viewer's membership. What the list shows of a chat
 * and of its last message is kept by those versions (clientapi/chats/serialize.ts).
 */
const chatRows = new ShapedQuery(
  (db: Db, v: { viewer: number; t: number; id: number }, shape: { cursor: boolean; limit: number }) => {
    let rows = db
      .selectFrom("conversation_members as m")
      .innerJoin("conversations as c", "c.id", "m.conversation_id")
      // the chat's newest message not deleted (a column kept by triggers), unless the viewer
      // hid it: then the newest they see, searched
      .leftJoin("messages as lm", (j) =>
        j.on((eb) =>
          eb(
            "lm.id",
            "=",
            eb
              .case()
              .when(
                eb.exists(
                  eb
                    .selectFrom("message_hidden as hh")
                    .select("hh.message_id")
                    .whereRef("hh.message_id", "=", "c.last_message_id")
                    .where("hh.user_id", "=", v.viewer),
                ),
              )
              .then(
                visibleMessages(eb as unknown as ExpressionBuilder<Outer, "c" | "m">, v.viewer)
                  .select("x.id")
                  .orderBy("x.seq", "desc")
                  .limit(1),
              )
              .else(eb.ref("c.last_message_id"))
              .end(),
          ),
        ),
      )
      // a reply shows the message it answers: its version names that part of the shape
      .leftJoin("messages as rm", (j) =>
        j.onRef("rm.conversation_id", "=", "c.id").onRef("rm.seq", "=", "lm.reply_to_seq"),
      )
      .select([
        "m.id as mid",
        "c.id",
        "c.version",
        "c.last_message_at",
        "m.activity_at",
        // kept by triggers on conversation_members (see the chat_member_count migration)
        "c.member_count",
        "m.role as my_role",
        "m.rights as my_rights",
        "m.last_read_seq as my_last_read_seq",
        // kept by triggers on every message, hide and read (see the unread_counter migration)
        "m.unread_count",
        "lm.id as lm_id",
        "lm.version as lm_version",
        "rm.version as rm_version",
      ])
      .where("m.user_id", "=", v.viewer)
      .where("m.role", "in", ACTIVE_ROLES);
    // the row value compares in the index's order, so the cursor is where the range read starts
    if (shape.cursor)
      rows = rows.where((eb) => eb(eb.refTuple("m.activity_at", "m.conversation_id"), "<", eb.tuple(v.t, v.id)));
    return rows.orderBy("m.activity_at", "desc").orderBy("m.conversation_id", "desc").limit(literalLimit(shape.limit));
  },
  // one shape per page size and cursor (LIMIT a literal: SQLite plans `LIMIT ?` for any row count)
  (s) => `${s.cursor ? "cursor" : "first"}:${s.limit}`,
);

type ChatPageRow = Awaited<ReturnType<typeof chatRows.execute>>[number];

// rows are mapped field by field: generic prefix splitting (Object.entries, string slicing)
// cost more than the statement itself on a page of chats
const itemOf = (r: ChatPageRow): ChatListItem => ({
  memberId: r.mid,
  conversationId: r.id,
  version: Number(r.version),
  activityAt: r.activity_at,
  lastMessageAt: r.last_message_at,
  member: { role: r.my_role, rights: r.my_rights, last_read_seq: r.my_last_read_seq },
  lastMessage:
    r.lm_id === null
      ? null
      : {
          id: r.lm_id,
          version: Number(r.lm_version),
          replyVersion: r.rm_version === null ? null : Number(r.rm_version),
        },
  unreadCount: Number(r.unread_count ?? 0),
  memberCount: Number(r.member_count),
});

/** A page of VIEWER's chats, newest activity first, in one statement (what each shows is kept by its versions). */
export async function listChats(
  db: Db,
  viewer: number,
  cursorRaw: string | undefined,
  limit: number,
): Promise<{ items: ChatListItem[]; nextCursor: string | null }> {
  const cursor = decodeCursor(cursorRaw);
  const rows = await chatRows.execute(
    db,
    { cursor: cursor !== null, limit: limit + 1 },
    { viewer, t: cursor?.t ?? 0, id: cursor?.id ?? 0 },
  );
  const page = pageOf(rows, limit, (c) => ({ t: c.activity_at, id: c.id }));
  return { items: page.items.map(itemOf), nextCursor: page.nextCursor };
}

// the chats whose kept view is missing or stale
const conversationsByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("conversations")
    .select(["id", "cuid", "type", "title", "description", "photo_url", "private_key", "created_at"])
    .where("id", "in", ids),
);

/** What the chat list shows of chats IDS (any order; no ids, no statement). */
export const findChatListConversations = (db: Db, ids: Iterable<number>): Promise<ChatListConversation[]> =>
  conversationsByIds(db, ids);

// the other parties and senders of the chats and messages not kept
const peopleByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("users")
    .select(["id", "cuid", "username", "display_name", "avatar_url", "is_bot", "is_system"])
    .where("id", "in", ids),
);

/** What the chat list shows of accounts IDS (any order, those that exist; no ids, no statement). */
export const findChatListPeople = (db: Db, ids: Iterable<number>): Promise<ChatListUser[]> => peopleByIds(db, ids);

// the chat list's last messages whose shape is not kept
const messagesByIds = compiledByIds((db, ids) => db.selectFrom("messages").selectAll().where("id", "in", ids));

/** The rows of messages IDS (any order; no ids, no statement). */
export const findMessagesByIds = (db: Db, ids: number[]): Promise<MessageRow[]> => messagesByIds(db, ids);
