import { sql } from "kysely";
import type { Db } from "../../db";
import { isActiveRole } from "./table";

export interface UnreadChats {
  /** chats with at least one message VIEWER has not read */
  chats: number;
  /** those messages, all chats together */
  messages: number;
}

/**
 * What VIEWER has not read across their chats: one indexed read of their memberships, since
 * each membership's unread count is kept by triggers on every message, hide and read.
 */
export async function unreadChats(db: Db, viewer: number): Promise<UnreadChats> {
  const row = await db
    .selectFrom("conversation_members")
    .select([
      sql<number>`count(case when unread_count > 0 then 1 end)`.as("chats"),
      sql<number>`coalesce(sum(unread_count), 0)`.as("messages"),
    ])
    .where("user_id", "=", viewer)
    .where(isActiveRole("role"))
    .executeTakeFirst();
  return { chats: Number(row?.chats ?? 0), messages: Number(row?.messages ?? 0) };
}
