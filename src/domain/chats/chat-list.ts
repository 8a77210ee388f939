import type { ExpressionBuilder } from "kysely";
import { defineService, type App } from "../../app";
import type { Database, Db } from "../../db";
import { KeptByVersion } from "../../lib/kept-by-version";
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

/** What the chat list shows of a chat. */
export type ChatListConversation = Pick<
  ConversationRow,
  "id" | "cuid" | "type" | "title" | "description" | "photo_url" | "created_at" | "last_message_at" | "activity_at"
>;
/** What the chat list shows of the viewer's membership. */
export type ChatListMember = Pick<MemberRow, "user_id" | "role" | "rights" | "last_read_seq">;
/** An account as the chat list shows it: a last message's sender, a private chat's other party. */
export type ChatListUser = Pick<
  UserRow,
  "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "is_system"
>;

/**
 * The last message of a chat as the list reads it: which message and which version of its row
 * (messages.version, one more on every change), so its serialized shape can be kept between
 * reads; `findMessagesByIds` reads the rows of those not kept.
 */
export type LastMessageRef = Pick<MessageRow, "id" | "version" | "sender_id">;

/** One chat of the viewer's chat list, with everything the list shows of it. */
export interface ChatListItem {
  conversation: ChatListConversation;
  /** the viewer's membership */
  member: ChatListMember;
  /** the newest message the viewer sees (not deleted, not hidden for them) */
  lastMessage: LastMessageRef | null;
  /** its sender (null without a last message, or when the account row is gone) */
  lastSender: ChatListUser | null;
  /** whether anyone reacted to the last message (its reactions are read only then) */
  lastMessageReacted: boolean;
  /** messages from others after the viewer's read mark */
  unreadCount: number;
  /** people in the chat now */
  memberCount: number;
  /** private chats: the other party (null for groups or when it is gone) */
  other: ChatListUser | null;
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
 * A page of the chat list in one statement: the viewer's chats by newest activity, each with
 * its last visible message (joined), the other party of a private chat (joined), that
 * message's sender when it is neither the viewer nor the other party (joined), the unread and
 * member counts (counter columns) and whether the last message has reactions (an EXISTS, an
 * index lookup). Only the columns the list shows are selected: a page's cost is mostly its
 * rows' columns. The rows come unordered: sorting them again by activity here would sort the
 * wide rows (SQLite copies each whole row into a temporary B-tree), so listChats orders them.
 */
const chatPages = new ShapedQuery(
  (db: Db, v: { viewer: number; t: number; id: number }, shape: { cursor: boolean; limit: number }) => {
    // the page's memberships first (order, cursor, limit): SQLite sorts whole result rows, so
    // with the view columns in the same SELECT every chat of the viewer paid for them
    // (a page of 20 of 50 chats cost what all 50 did)
    let ids = db
      .selectFrom("conversation_members as pm")
      .innerJoin("conversations as pc", "pc.id", "pm.conversation_id")
      .select(["pm.id as mid", "pc.id as cid"])
      .where("pm.user_id", "=", v.viewer)
      .where("pm.role", "in", ACTIVE_ROLES);
    if (shape.cursor)
      ids = ids.where((eb) =>
        eb.or([eb("pc.activity_at", "<", v.t), eb.and([eb("pc.activity_at", "=", v.t), eb("pc.id", "<", v.id)])]),
      );
    const page = ids
      .orderBy("pc.activity_at", "desc")
      .orderBy("pc.id", "desc")
      .limit(literalLimit(shape.limit + 1))
      .as("pg");
    return (
      db
        .selectFrom(page)
        .innerJoin("conversation_members as m", "m.id", "pg.mid")
        .innerJoin("conversations as c", "c.id", "pg.cid")
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
        .leftJoin("users as ou", (j) =>
          j
            .on("c.type", "=", "private")
            .on((eb) =>
              eb(
                "ou.id",
                "=",
                eb
                  .selectFrom("conversation_members as om")
                  .select("om.user_id")
                  .whereRef("om.conversation_id", "=", "c.id")
                  .where("om.user_id", "!=", v.viewer)
                  .limit(1),
              ),
            ),
        )
        // the sender's columns only for a third party: in a private chat the last message is
        // the viewer's or the other party's, whose rows the caller and `ou` already hold
        .leftJoin("users as su", (j) =>
          j
            .onRef("su.id", "=", "lm.sender_id")
            .on("su.id", "!=", v.viewer)
            .on((eb) => eb.or([eb("ou.id", "is", null), eb("su.id", "!=", eb.ref("ou.id"))])),
        )
        .select([
          "c.id",
          "c.cuid",
          "c.type",
          "c.title",
          "c.description",
          "c.photo_url",
          "c.created_at",
          "c.last_message_at",
          "c.activity_at",
          // kept by triggers on conversation_members (see the chat_member_count migration)
          "c.member_count",
          "m.role as my_role",
          "m.rights as my_rights",
          "m.last_read_seq as my_last_read_seq",
          // kept by triggers on every message, hide and read (see the unread_counter migration)
          "m.unread_count",
          // the message by id and version only: its shape is kept by those (clientapi/chats/serialize.ts)
          "lm.id as lm_id",
          "lm.version as lm_version",
          "lm.sender_id as lm_sender_id",
          // accounts by id and profile version only: their shown columns are kept by those
          "su.id as su_id",
          "su.profile_version as su_version",
          "ou.id as ou_id",
          "ou.profile_version as ou_version",
        ])
        .select((eb) =>
          eb
            .exists(
              eb.selectFrom("message_reactions as r").select("r.message_id").whereRef("r.message_id", "=", "lm.id"),
            )
            .as("lm_reacted"),
        )
    );
  },
  (s) => `${s.cursor ? 1 : 0}:${s.limit}`,
);

type ChatPageRow = Awaited<ReturnType<typeof chatPages.execute>>[number];

// rows are mapped field by field: generic prefix splitting (Object.entries, string slicing)
// cost more than the statement itself on a page of chats
function itemOf(r: ChatPageRow, viewer: ChatListUser, people: Map<number, ChatListUser>): ChatListItem {
  const other = r.ou_id === null ? null : (people.get(r.ou_id) ?? null);
  return {
    conversation: {
      id: r.id,
      cuid: r.cuid,
      type: r.type,
      title: r.title,
      description: r.description,
      photo_url: r.photo_url,
      created_at: r.created_at,
      last_message_at: r.last_message_at,
      activity_at: r.activity_at,
    },
    member: { user_id: viewer.id, role: r.my_role, rights: r.my_rights, last_read_seq: r.my_last_read_seq },
    lastMessage: r.lm_id === null ? null : { id: r.lm_id, version: Number(r.lm_version), sender_id: r.lm_sender_id! },
    // the query joins the sender only when it is neither the viewer nor the other party
    lastSender:
      r.su_id !== null
        ? (people.get(r.su_id) ?? null)
        : r.lm_sender_id === viewer.id
          ? viewer
          : other !== null && r.lm_sender_id === other.id
            ? other
            : null,
    lastMessageReacted: Number(r.lm_reacted) === 1 || (r.lm_reacted as unknown) === true,
    unreadCount: Number(r.unread_count ?? 0),
    memberCount: Number(r.member_count),
    other,
  };
}

/** Most accounts' shown columns kept per App (for the chat list's other parties and senders). */
const MAX_KEPT_PEOPLE = 10_000;
const keptPeopleService = defineService(
  "chats:chat-list-people",
  () => new KeptByVersion<ChatListUser>(MAX_KEPT_PEOPLE),
);

/** The accounts' shown columns the App's chat lists keep, by id and profile version. */
export const chatListPeopleOf = (app: App): KeptByVersion<ChatListUser> => app.services.get(keptPeopleService);

// the shown columns of the accounts a page names and the App does not keep
const peopleByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("users")
    .select(["id", "cuid", "username", "display_name", "avatar_url", "is_bot", "is_system", "profile_version"])
    .where("id", "in", ids),
);

/** The page's accounts (other parties and third-party senders) by id: kept ones as kept, the rest read once. */
async function peopleOf(db: Db, kept: KeptByVersion<ChatListUser>, rows: ChatPageRow[]) {
  const people = new Map<number, ChatListUser>();
  const missing = new Set<number>();
  const want = (id: number | null, version: number | null) => {
    if (id === null || people.has(id)) return;
    const user = kept.get(id, Number(version));
    if (user) people.set(id, user);
    else missing.add(id);
  };
  for (const r of rows) {
    want(r.ou_id, r.ou_version);
    want(r.su_id, r.su_version);
  }
  for (const u of await peopleByIds(db, missing)) {
    const user: ChatListUser = {
      id: u.id,
      cuid: u.cuid,
      username: u.username,
      display_name: u.display_name,
      avatar_url: u.avatar_url,
      is_bot: u.is_bot,
      is_system: u.is_system,
    };
    kept.keep(u.id, Number(u.profile_version), user);
    people.set(u.id, user);
  }
  return people;
}

/** Newest activity first, the list's (t, id) order. */
const byActivity = (a: ChatPageRow, b: ChatPageRow) => b.activity_at - a.activity_at || b.id - a.id;

/**
 * A page of VIEWER's chats, newest activity first: one statement, and one more for the accounts
 * (other parties, senders) whose shown columns KEPT does not hold at their profile version.
 */
export async function listChats(
  db: Db,
  kept: KeptByVersion<ChatListUser>,
  viewer: ChatListUser,
  cursorRaw: string | undefined,
  limit: number,
): Promise<{ items: ChatListItem[]; nextCursor: string | null }> {
  const cursor = decodeCursor(cursorRaw);
  const rows = await chatPages.execute(
    db,
    { cursor: cursor !== null, limit },
    { viewer: viewer.id, t: cursor?.t ?? 0, id: cursor?.id ?? 0 },
  );
  const page = pageOf(rows.sort(byActivity), limit, (c) => ({ t: c.activity_at, id: c.id }));
  const people = await peopleOf(db, kept, page.items);
  return { items: page.items.map((r) => itemOf(r, viewer, people)), nextCursor: page.nextCursor };
}

// the chat list's last messages whose shape is not kept
const messagesByIds = compiledByIds((db, ids) => db.selectFrom("messages").selectAll().where("id", "in", ids));

/** The rows of messages IDS (any order; no ids, no statement). */
export const findMessagesByIds = (db: Db, ids: number[]): Promise<MessageRow[]> => messagesByIds(db, ids);
