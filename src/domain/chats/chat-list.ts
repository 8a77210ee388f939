import type { ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { compiledByIds, compiledForViewerByIds, ShapedQuery } from "../../db/compiled";
import { decodeCursor, pageOf } from "../../lib/paging";
import { literalLimit } from "../posts/keyset";
import type { UserRow } from "../users/table";
import { isActiveRole, type ConversationRow, type ConversationsTable, type MemberRow, type MessageRow } from "./table";

/** The hidden-aware last message query's outer table: the chat `c`. */
type Outer = Database & { c: ConversationsTable };

/**
 * What the chat list shows of a chat itself and of one member's role and rights in it (MID:
 * the membership), read only when its kept view is missing or stale: the chat's version names
 * both (a member's role and rights raise it: the chat_member_role_version migration).
 */
export type ChatListConversation = Pick<
  ConversationRow,
  "id" | "cuid" | "type" | "title" | "description" | "photo_url" | "private_key" | "created_at"
> &
  Pick<MemberRow, "role" | "rights"> & { mid: number };
/** What the chat list shows of the viewer's membership on every page (role and rights: with the chat's view). */
export type ChatListMember = Pick<MemberRow, "last_read_seq">;
/** An account as the chat list shows it: a last message's sender, a private chat's other party. */
export type ChatListUser = Pick<
  UserRow,
  "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "is_system"
>;

/**
 * The last message of a chat as the list reads it: which message, and VERSION, a name of
 * everything its serialized shape is made from besides its chat's version, so the shape can
 * be kept between reads (`findMessagesByIds` reads the rows of those not kept). Most chats name
 * it by the chat's last_message_version (`c<n>`: one more on every change or removal of any
 * message of the chat, so of the last one and of the one it replies to); a chat whose
 * messages the viewer hid names its newest message they see by that message's row version and
 * the replied-to message's (`<v>:<v or null>`).
 */
export interface LastMessageRef {
  id: number;
  version: string;
}

/**
 * One chat of the viewer's chat list as a page names it: numbers only. What the list shows of
 * the chat itself, of the viewer's role and rights in it and of its last message is kept by the
 * versions here (clientapi/chats/serialize.ts); the viewer's read mark and unread count and the
 * counters are read on every page.
 */
export interface ChatListItem {
  /** the viewer's membership (conversation_members.id) */
  memberId: number;
  conversationId: number;
  /**
   * conversations.version: one more on every change of the chat's own shown columns, of its
   * members (joined, removed, their role or rights) and of the profile of anyone in it
   * (triggers; see the chat_list_versions and chat_member_role_version migrations), i.e. of
   * everything the chat's view, the viewer's role and rights and its last message's sender show
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
const visibleMessages = (eb: ExpressionBuilder<Outer, "c">, viewer: number) =>
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
 * (user_id, activity_at, conversation_id, …) index holds them in the list's order with the
 * member's own columns, so the page is one range read of LIMIT index entries (neither sorted
 * nor read past the page) and each chat's row: its counters, its version, its last message not
 * deleted (last_message_id) and that message's version (last_message_version), all columns kept
 * by triggers. No message is read: what the list shows of a chat and of its last message is
 * kept by those versions (clientapi/chats/serialize.ts). A chat where the viewer hid messages
 * (has_hidden) may show an older one: hiddenAwareLast reads those.
 */
const chatRows = new ShapedQuery(
  (db: Db, v: { viewer: number; t: number; id: number }, shape: { cursor: boolean; limit: number }) => {
    let rows = db
      .selectFrom("conversation_members as m")
      .innerJoin("conversations as c", "c.id", "m.conversation_id")
      .select([
        "m.id as mid",
        "c.id",
        "c.version",
        "c.last_message_at",
        "m.activity_at",
        // kept by triggers on conversation_members (see the chat_member_count migration)
        "c.member_count",
        "m.last_read_seq as my_last_read_seq",
        // kept by triggers on every message, hide and read (see the unread_counter migration)
        "m.unread_count",
        "m.has_hidden",
        "c.last_message_id as lm_id",
        "c.last_message_version as lm_version",
      ])
      .where("m.user_id", "=", v.viewer)
      .where(isActiveRole("m.role"));
    // the row value compares in the index's order, so the cursor is where the range read starts
    if (shape.cursor)
      rows = rows.where((eb) => eb(eb.refTuple("m.activity_at", "m.conversation_id"), "<", eb.tuple(v.t, v.id)));
    return rows.orderBy("m.activity_at", "desc").orderBy("m.conversation_id", "desc").limit(literalLimit(shape.limit));
  },
  // one shape per page size and cursor (LIMIT a literal: SQLite plans `LIMIT ?` for any row count)
  (s) => `${s.cursor ? "cursor" : "first"}:${s.limit}`,
);

/**
 * The newest message VIEWER sees in each of the chats IDS (the chat's last message unless they
 * hid it: then searched), with its row's version and its replied-to message's: for the chats
 * where the viewer hid messages. One shape per count of chats.
 */
const hiddenAwareLast = compiledForViewerByIds((db, viewer, ids) =>
  db
    .selectFrom("conversations as c")
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
                  .where("hh.user_id", "=", viewer),
              ),
            )
            .then(
              visibleMessages(eb as unknown as ExpressionBuilder<Outer, "c">, viewer)
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
    .select(["c.id", "lm.id as lm_id", "lm.version as lm_version", "rm.version as rm_version"])
    .where("c.id", "in", ids),
);

/**
 * One chat of the viewer's list as the page's statement reads it: the membership (MID), the
 * chat (ID) and its version, the numbers the list shows and the last message's id and version
 * (see ChatListItem, which is made of these). A page hands its rows on as read, so a chat whose
 * kept JSON was written from equal numbers is answered without making anything.
 */
export type ChatListRow = Awaited<ReturnType<typeof chatRows.execute>>[number];

/** A searched last message (hiddenAwareLast), or none the viewer sees. */
type SearchedLast = LastMessageRef | null;

/** A page of the viewer's chat list as read: its rows in the list's order, and what follows it. */
export interface ChatListPage {
  rows: ChatListRow[];
  /** for the rows whose member hid messages of the chat (has_hidden): the newest message they see, by chat */
  searched: ReadonlyMap<number, SearchedLast> | undefined;
  nextCursor: string | null;
}

// rows are mapped field by field: generic prefix splitting (Object.entries, string slicing)
// cost more than the statement itself on a page of chats
const itemOf = (r: ChatListRow, searched: ReadonlyMap<number, SearchedLast> | undefined): ChatListItem => ({
  memberId: r.mid,
  conversationId: r.id,
  version: Number(r.version),
  activityAt: r.activity_at,
  lastMessageAt: r.last_message_at,
  member: { last_read_seq: r.my_last_read_seq },
  lastMessage: lastMessageOf(r, searched),
  unreadCount: Number(r.unread_count ?? 0),
  memberCount: Number(r.member_count),
});

/** The last message row R names for its member: the chat's, or the one searched when they hid messages. */
export const lastMessageOf = (r: ChatListRow, searched: ReadonlyMap<number, SearchedLast> | undefined) =>
  r.has_hidden === 1
    ? (searched?.get(r.id) ?? null)
    : r.lm_id === null
      ? null
      : { id: r.lm_id, version: `c${r.lm_version}` };

/** Chat R of PAGE as a ChatListItem. */
export const chatListItem = (page: ChatListPage, r: ChatListRow): ChatListItem => itemOf(r, page.searched);

/** The newest message VIEWER sees in each of chats IDS (hiddenAwareLast), by chat. */
async function searchLast(db: Db, viewer: number, ids: number[]): Promise<Map<number, SearchedLast>> {
  const rows = await hiddenAwareLast(db, viewer, ids);
  return new Map(
    rows.map((r) => [r.id, r.lm_id === null ? null : { id: r.lm_id, version: `${r.lm_version}:${r.rm_version}` }]),
  );
}

/** A page of VIEWER's chats as read, newest activity first, in one statement (two when they hid messages of some). */
export async function readChatList(
  db: Db,
  viewer: number,
  cursorRaw: string | undefined,
  limit: number,
): Promise<ChatListPage> {
  const cursor = decodeCursor(cursorRaw);
  const rows = await chatRows.execute(
    db,
    { cursor: cursor !== null, limit: limit + 1 },
    { viewer, t: cursor?.t ?? 0, id: cursor?.id ?? 0 },
  );
  const page = pageOf(rows, limit, (c) => ({ t: c.activity_at, id: c.id }));
  // a chat where the viewer hid messages: its newest they see, searched (one statement for the page)
  let hidden: number[] | undefined;
  for (const r of page.items) if (r.has_hidden === 1) (hidden ??= []).push(r.id);
  const searched = hidden && (await searchLast(db, viewer, hidden));
  return { rows: page.items, searched, nextCursor: page.nextCursor };
}

/** A page of VIEWER's chats, newest activity first (readChatList, each row as a ChatListItem). */
export async function listChats(
  db: Db,
  viewer: number,
  cursorRaw: string | undefined,
  limit: number,
): Promise<{ items: ChatListItem[]; nextCursor: string | null }> {
  const page = await readChatList(db, viewer, cursorRaw, limit);
  return { items: page.rows.map((r) => itemOf(r, page.searched)), nextCursor: page.nextCursor };
}

// the chats whose kept view is missing or stale, by membership
const conversationsByMembers = compiledByIds((db, mids) =>
  db
    .selectFrom("conversation_members as m")
    .innerJoin("conversations as c", "c.id", "m.conversation_id")
    .select([
      "m.id as mid",
      "m.role",
      "m.rights",
      "c.id",
      "c.cuid",
      "c.type",
      "c.title",
      "c.description",
      "c.photo_url",
      "c.private_key",
      "c.created_at",
    ])
    .where("m.id", "in", mids),
);

/** What the chat list shows of the chats of memberships MIDS, with the member's role and rights (any order; no ids, no statement). */
export const findChatListConversations = (db: Db, mids: Iterable<number>): Promise<ChatListConversation[]> =>
  conversationsByMembers(db, mids);

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
