import type { Db } from "../../db";
import { ACTIVE_ROLES, type MessageRow } from "../chats/table";
import { encodeCursor, type Cursor } from "../../lib/paging";
import { beforeKey } from "../posts/keyset";

/** Case-, diacritic- and emoji-variant-insensitive form used to match message text. */
export function foldForMatch(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\p{M}\p{Emoji_Modifier}\u{200D}]/gu, "")
    .toLowerCase();
}

const BATCH = 200;
const MAX_SCANNED = 4000;

/**
 * Messages containing Q in the chats the viewer is a member of now, newest first. Chat
 * history is private and per-member, so this scans the viewer's own messages in bounded
 * batches (keyset on created_at, id) instead of a shared index; when the scan budget ends
 * before the page is full the cursor continues from where it stopped.
 */
export async function searchMessages(
  db: Db,
  viewerId: number,
  q: string,
  opts: { cursor: Cursor | null; limit: number },
): Promise<{ messages: MessageRow[]; nextCursor: string | null }> {
  const needle = foldForMatch(q.trim());
  if (!needle) return { messages: [], nextCursor: null };
  const memberships = await db
    .selectFrom("conversation_members")
    .select("conversation_id")
    .where("user_id", "=", viewerId)
    .where("role", "in", ACTIVE_ROLES)
    .execute();
  if (!memberships.length) return { messages: [], nextCursor: null };
  const conversationIds = memberships.map((m) => m.conversation_id);
  const found: MessageRow[] = [];
  let after = opts.cursor;
  let scanned = 0;
  while (scanned < MAX_SCANNED) {
    let query = db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "in", conversationIds)
      .where("deleted_at", "is", null)
      .where("kind", "=", "user")
      .where("id", "not in", (eb) =>
        eb.selectFrom("message_hidden").select("message_id").where("user_id", "=", viewerId),
      );
    const c = after;
    if (c) query = query.where(beforeKey("messages.created_at", "messages.id", c));
    const batch = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(BATCH).execute();
    for (const m of batch) {
      scanned++;
      after = { t: m.created_at, id: m.id };
      if (foldForMatch(m.content).includes(needle)) {
        found.push(m);
        if (found.length === opts.limit) return { messages: found, nextCursor: encodeCursor(after) };
      }
    }
    if (batch.length < BATCH) return { messages: found, nextCursor: null };
  }
  return { messages: found, nextCursor: after ? encodeCursor(after) : null };
}
