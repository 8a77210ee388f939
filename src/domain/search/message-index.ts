import { sql } from "kysely";
import type { App } from "../../app";
import type { Storage } from "../../db";
import { inTransaction, type Scope } from "../../db/transaction";

/*
 * The full-text index of messages trails the messages table: a send does not index its message,
 * which would more than double what a send costs (on SQLite, FTS5 writes its pending terms out
 * at every savepoint and each send of a group commit runs in one; on PostgreSQL, computing the
 * lexemes and inserting them into a GIN index). What trails is indexed here in bulk: every
 * second in a serving process, and before every message search, so a search never misses a
 * message. On SQLite, what trails is every message past messages_fts_mark (migration
 * 20261129150000_messages_fts_trailing); on PostgreSQL, the ids in messages_fts_queue (migration
 * 20261202100000_messages_fts_queue). Edits and deletions of indexed messages are followed by
 * triggers on both.
 */

/** Messages indexed in one SQLite transaction, so a long backlog (a restore, an import) never holds the writer long. */
const BATCH = 5_000;
/** Queued ids taken in one PostgreSQL transaction: each is a parameter of its statements. */
const QUEUE_BATCH = 1_000;
const EVERY_MS = 1_000;

/** SQLite: indexes up to BATCH messages past the mark in SCOPE's transaction; answers how many ids it moved past. */
export async function indexTrailingMessages(scope: Scope): Promise<number> {
  const { rows } = await sql<{ from: number; to: number | null }>`
    SELECT mark.indexed_to AS "from",
      (SELECT max(id) FROM (SELECT id FROM messages WHERE id > mark.indexed_to ORDER BY id LIMIT ${BATCH})) AS "to"
    FROM messages_fts_mark mark`.execute(scope.db);
  const range = rows[0];
  if (!range || range.to === null) return 0;
  // ё is е to readers of Russian, as in the migration's triggers
  await sql`INSERT INTO messages_fts (rowid, body)
    SELECT id, replace(replace(content, 'ё', 'е'), 'Ё', 'Е') FROM messages
    WHERE id > ${range.from} AND id <= ${range.to} AND kind = 'user' AND deleted_at IS NULL`.execute(scope.db);
  await sql`UPDATE messages_fts_mark SET indexed_to = ${range.to}`.execute(scope.db);
  return range.to - range.from;
}

/**
 * PostgreSQL: indexes up to QUEUE_BATCH queued messages (with ids up to UPTO, when given) in
 * SCOPE's transaction; answers how many it took off the queue. The queue's rows are locked
 * first, in id order (another pass waits rather than indexing them twice), then the messages
 * FOR SHARE, so the text indexed is the text committed: an edit under way is waited for, and
 * one that comes later waits, then drops these lexemes and queues the message again.
 */
export async function indexQueuedMessages(scope: Scope, upTo: number | null): Promise<number> {
  const upToId = upTo === null ? sql`` : sql`WHERE message_id <= ${upTo}`;
  const { rows } = await sql<{ id: number }>`SELECT message_id AS id FROM messages_fts_queue ${upToId}
    ORDER BY message_id LIMIT ${QUEUE_BATCH} FOR UPDATE`.execute(scope.db);
  if (rows.length === 0) return 0;
  const ids = sql.join(rows.map((r) => r.id));
  await sql`INSERT INTO messages_fts (message_id, conversation_id, body)
    SELECT id, conversation_id, social_message_tsvector(content) FROM (
      SELECT id, conversation_id, content FROM messages
      WHERE id IN (${ids}) AND kind = 'user' AND deleted_at IS NULL FOR SHARE) sent
    WHERE true
    ON CONFLICT (message_id) DO UPDATE SET body = excluded.body`.execute(scope.db);
  await sql`DELETE FROM messages_fts_queue WHERE message_id IN (${ids})`.execute(scope.db);
  return rows.length;
}

/** Whether messages wait to be indexed (one look at the end of a table or two). */
async function trailing(storage: Storage): Promise<boolean> {
  const { rows } =
    storage.engine === "sqlite"
      ? await sql<{ behind: number }>`
          SELECT coalesce((SELECT max(id) FROM messages), 0) > (SELECT indexed_to FROM messages_fts_mark) AS behind`.execute(
          storage.db,
        )
      : await sql<{ behind: boolean }>`SELECT EXISTS (SELECT 1 FROM messages_fts_queue) AS behind`.execute(storage.db);
  return Boolean(rows[0]?.behind);
}

/**
 * Brings the index up to every message stored so far, committed. On SQLite always in at least
 * one transaction: a pass of the indexer may be under way in the write group still open,
 * whose rows this connection reads already but a search, reading on a connection of its own
 * (Storage.longReads), sees only once that group has committed. On PostgreSQL up to the ids
 * queued when it starts, so sends that keep coming never keep it going.
 */
export async function catchUpMessageIndex(storage: Storage): Promise<void> {
  if (storage.engine === "sqlite") {
    for (;;) {
      const moved = await inTransaction(storage, indexTrailingMessages);
      if (moved === 0 || !(await trailing(storage))) return;
    }
  }
  const { rows } = await sql<{ last: number | null }>`SELECT max(message_id) AS last FROM messages_fts_queue`.execute(
    storage.db,
  );
  const upTo = rows[0]?.last ?? null;
  if (upTo === null) return;
  while ((await inTransaction(storage, (scope) => indexQueuedMessages(scope, upTo))) > 0);
}

/** A serving process keeps the index at most about a second behind, so a search's catch-up is short. */
export function startMessageIndexer(app: App): void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    // an idle instance's pass is one look, no transaction
    trailing(app.storage)
      .then((behind) => (behind ? catchUpMessageIndex(app.storage) : undefined))
      .catch((err) =>
        app.log.warn("messages not indexed for search; the next pass tries again", {
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => (running = false));
  }, EVERY_MS);
  timer.unref?.();
  app.onClose(() => clearInterval(timer));
}
