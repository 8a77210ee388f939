import { Database as SqliteDatabase } from "bun:sqlite";
import { sql } from "kysely";
import type { App } from "../../app";
import type { Storage } from "../../db";
import { inTransaction, type Scope } from "../../db/transaction";
import { indexWorkerOf, type IndexLook } from "./index-worker";

/*
 * The full-text index of messages trails the messages table: a send does not index its message,
 * which would more than double what a send costs (on PostgreSQL, computing the lexemes and
 * inserting them into a GIN index; on SQLite, FTS5's entries and merges). What trails is indexed
 * in bulk: every second in a serving process, and before every message search, so a search
 * never misses a message. On SQLite the index is a database of its own written by a worker
 * thread (index-worker.ts), which follows the messages by id and the edits and removals queued
 * in messages_search_changes (migration 20261203100000_messages_search_database); on
 * PostgreSQL, the ids queued in messages_fts_queue are indexed here (migration
 * 20261202100000_messages_fts_queue) and edits and deletions are followed by triggers.
 */

/** Queued ids taken in one PostgreSQL transaction. */
const QUEUE_BATCH = 1_000;
const EVERY_MS = 1_000;

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
  // one array parameter, not a list of a thousand: parsing and planning the list is a share of the pass
  const ids = `{${rows.map((r) => r.id).join(",")}}`;
  await sql`INSERT INTO messages_fts (message_id, conversation_id, body)
    SELECT id, conversation_id, social_message_tsvector(content) FROM (
      SELECT id, conversation_id, content FROM messages
      WHERE id = ANY(${ids}::bigint[]) AND kind = 'user' AND deleted_at IS NULL FOR SHARE) sent
    WHERE true
    ON CONFLICT (message_id) DO UPDATE SET body = excluded.body`.execute(scope.db);
  await sql`DELETE FROM messages_fts_queue WHERE message_id = ANY(${ids}::bigint[])`.execute(scope.db);
  return rows.length;
}

/**
 * Brings the index up to every message stored (and edited or removed) so far, committed, and
 * no further: sends that keep coming never keep it going. On SQLite the index's worker does it
 * and answers where the index stands; on PostgreSQL up to the ids queued when it starts.
 */
export async function catchUpMessageIndex(storage: Storage): Promise<IndexLook | null> {
  if (storage.engine === "sqlite") {
    const worker = indexWorkerOf(storage);
    if (!worker) throw new Error("messages are searched in a database file, not in memory");
    return worker.catchUp();
  }
  const { rows } = await sql<{ last: number | null }>`SELECT max(message_id) AS last FROM messages_fts_queue`.execute(
    storage.db,
  );
  const upTo = rows[0]?.last ?? null;
  if (upTo === null) return null;
  while ((await inTransaction(storage, (scope) => indexQueuedMessages(scope, upTo))) > 0);
  return null;
}

/** SQLite: the newest message and queued change, as the serving connection sees them (once a second: not worth compiling once). */
async function lastQueued(storage: Storage): Promise<{ lastMessage: number; lastChange: number }> {
  const { rows } = await sql<{ lastMessage: number | null; lastChange: number | null }>`SELECT
    (SELECT max(id) FROM messages) AS "lastMessage", (SELECT max(id) FROM messages_search_changes) AS "lastChange"`.execute(
    storage.db,
  );
  return { lastMessage: Number(rows[0]?.lastMessage ?? 0), lastChange: Number(rows[0]?.lastChange ?? 0) };
}

/**
 * SQLite: where the index file says it stands, read without the worker (an idle instance
 * starts no thread for it); nothing taken in when it is new or unreadable.
 */
function indexFileLook(path: string): Pick<IndexLook, "indexedTo" | "changesTo"> {
  let index: SqliteDatabase | null = null;
  try {
    index = new SqliteDatabase(path, { readonly: true });
    const row = index.query("SELECT indexed_to AS indexedTo, changes_to AS changesTo FROM meta").get() as Pick<
      IndexLook,
      "indexedTo" | "changesTo"
    > | null;
    return row ?? { indexedTo: 0, changesTo: 0 };
  } catch {
    return { indexedTo: 0, changesTo: 0 };
  } finally {
    index?.close();
  }
}

/**
 * A serving process keeps the index at most about a second behind, so a search's catch-up is
 * short. On SQLite it also deletes the queued changes the index has taken in.
 */
export function startMessageIndexer(app: App): void {
  const storage = app.storage;
  let running = false;
  // SQLite: how far the index had got at its last word, and the queued changes deleted up to
  let at: Pick<IndexLook, "indexedTo" | "changesTo"> | null = null;
  let prunedTo = 0;
  const sqlitePass = async () => {
    at ??= indexFileLook(storage.searchIndexPath!);
    const last = await lastQueued(storage);
    // an idle instance's pass is this one look, on the serving connection
    if (last.lastMessage <= at.indexedTo && last.lastChange <= at.changesTo) return;
    at = (await catchUpMessageIndex(storage))!;
    if (at.changesTo > prunedTo) {
      const upTo = at.changesTo;
      await inTransaction(storage, (scope) =>
        sql`DELETE FROM messages_search_changes WHERE id <= ${upTo}`.execute(scope.db),
      );
      prunedTo = upTo;
    }
  };
  const postgresPass = async () => {
    const { rows } = await sql<{ behind: boolean }>`SELECT EXISTS (SELECT 1 FROM messages_fts_queue) AS behind`.execute(
      storage.db,
    );
    if (rows[0]?.behind) await catchUpMessageIndex(storage);
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    (storage.engine === "sqlite" ? sqlitePass() : postgresPass())
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
