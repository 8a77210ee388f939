import { sql, type RawBuilder } from "kysely";
import type { Db, Storage } from "../../db";
import { forEngine } from "../../db/engine";
import { ACTIVE_ROLES, type MessageRow } from "../chats/table";
import { withinBudget } from "./budget";
import { catchUpMessageIndex } from "./message-index";
import { pageOfWindow, SEARCH_WINDOW, windowBefore } from "./window";
import { ftsQuery, searchTerms, tsqueryText } from "./normalize";

/**
 * The newest SEARCH_WINDOW index hits of TERMS below message id BEFORE (messages of people, not
 * deleted for everyone), as a table of ids; with CHAT, hits in that conversation only, so a chat
 * with few hits among many of the instance still fills its window. That walk passes over the
 * other chats' hits, so it carries the search's time budget itself.
 */
type HitsScope = { before: number | null; chat: { id: number; budgetMs: number } | null };
const indexHits = {
  sqlite(db: Db, terms: string[], { before, chat }: HitsScope): RawBuilder<unknown> | null {
    const below = before === null ? sql`` : sql`AND messages_fts.rowid < ${before}`;
    const inChat = chat
      ? sql`AND m.conversation_id = ${chat.id} AND ${withinBudget(db, chat.budgetMs, sql`messages_fts.rowid`)}`
      : sql``;
    const join = chat ? sql`JOIN messages m ON m.id = messages_fts.rowid` : sql``;
    // the index's own database, which long reads see as the schema search (Storage.searchIndexPath)
    return sql`SELECT messages_fts.rowid AS id FROM search.messages_fts ${join}
      WHERE messages_fts MATCH ${ftsQuery(terms)} ${below} ${inChat}
      ORDER BY messages_fts.rowid DESC LIMIT ${SEARCH_WINDOW}`;
  },
  // the table messages_fts (migration 20261202100000_messages_fts_queue) holds the lexemes of
  // every message search shows; the query's lexemes are cast, not parsed (PostgreSQL's parser
  // would drop emoji)
  postgres(db: Db, terms: string[], { before, chat }: HitsScope): RawBuilder<unknown> | null {
    const query = tsqueryText(terms);
    if (!query) return null;
    const below = before === null ? sql`` : sql`AND message_id < ${before}`;
    const inChat = chat
      ? sql`AND conversation_id = ${chat.id} AND ${withinBudget(db, chat.budgetMs, sql`message_id`)}`
      : sql``;
    return sql`SELECT message_id AS id FROM messages_fts
      WHERE body @@ social_unaccent(${query})::tsquery ${below} ${inChat}
      ORDER BY message_id DESC LIMIT ${SEARCH_WINDOW}`;
  },
};

/**
 * Messages with Q's words (the last one a prefix) in the chats the viewer is a member of
 * now (only conversation CONVERSATIONID's, when given), newest first; messages the viewer
 * deleted for themselves are left out. Each call
 * reads one window of the index (window.ts): a page may be short, with a cursor to read on.
 * The index first takes in the messages it trails by (message-index.ts); the search runs on
 * the storage's connection for long reads.
 */
export async function searchMessages(
  storage: Storage,
  viewerId: number,
  q: string,
  opts: { cursor: string | null; limit: number; budgetMs: number; conversationId?: number },
): Promise<{ messages: MessageRow[]; nextCursor: string | null }> {
  const before = windowBefore(opts.cursor);
  const terms = searchTerms(q);
  // the index's worker catches up, then the search reads off the serving thread
  const db = storage.longReads;
  const chat = opts.conversationId === undefined ? null : { id: opts.conversationId, budgetMs: opts.budgetMs };
  const hits = terms.length ? forEngine(db, indexHits)(db, terms, { before, chat }) : null;
  if (!hits) return { messages: [], nextCursor: null };
  await catchUpMessageIndex(storage);
  const { rows } = await sql<MessageRow>`WITH hits AS (${hits})
    SELECT m.* FROM hits
    -- what the index holds may trail an edit or a removal made since its catch-up
    JOIN messages m ON m.id = hits.id AND m.kind = 'user' AND m.deleted_at IS NULL
    JOIN conversation_members cm ON cm.conversation_id = m.conversation_id AND cm.user_id = ${viewerId}
      AND cm.role IN (${sql.join(ACTIVE_ROLES)})
    WHERE ${withinBudget(db, opts.budgetMs, sql`hits.id`)}
      AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = m.id AND h.user_id = ${viewerId})
    ORDER BY m.id DESC
    LIMIT ${opts.limit + 1}`.execute(db);
  const { items, nextCursor } = await pageOfWindow(db, hits, rows, opts.limit);
  return { messages: items, nextCursor };
}
