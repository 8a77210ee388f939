import type { App } from "../app";
import { precompiled } from "../db/compiled";
import { cacheStampsOf } from "./stamps";

const stampOf = precompiled((db, p: { user: number }) =>
  db.selectFrom("chat_list_stamps").select("stamp").where("user_id", "=", p.user),
);

/**
 * VIEWER's chat-list stamp as committed: raised by triggers on every write that may change what
 * their chat list shows, whoever makes it (the chat_list_stamps migration), so an answer kept
 * under an older stamp is stale and no writer has to be told. Read it before the rows an answer
 * is made from: a write that comes between raises it past the answer's, which then misses. 0 for
 * an account that never had a chat (no row, which no raised stamp equals). On SQLite read at
 * once through the cache stamps' connection (CacheStamps.peekChatList); else one statement.
 */
export async function chatListStamp(app: App, viewer: number): Promise<number> {
  return cacheStampsOf(app).peekChatList(viewer) ?? (await readChatListStamp(app.db, viewer));
}

/** VIEWER's chat-list stamp as DB (a transaction, say) sees it: one statement. */
export async function readChatListStamp(db: App["db"], viewer: number): Promise<number> {
  const [row] = await stampOf(db, { user: viewer });
  return row ? Number(row.stamp) : 0;
}
