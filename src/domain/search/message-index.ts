import { sql } from "kysely";
import type { App } from "../../app";
import type { Storage } from "../../db";
import { inTransaction, type Scope } from "../../db/transaction";

/*
 * On SQLite the full-text index of messages trails the messages table (migration
 * 20261129150000_messages_fts_trailing): a send does not index its message, since FTS5 writes
 * its pending terms out at every savepoint and each send of a group commit runs in one. The
 * messages past messages_fts_mark are indexed here in bulk: every second in a serving process,
 * and before every message search, so a search never misses a message. PostgreSQL's GIN
 * index follows every write by itself: nothing to do there.
 */

/** Messages indexed in one transaction, so a long backlog (a restore, an import) never holds the writer long. */
const BATCH = 5_000;
const EVERY_MS = 1_000;

/** Indexes up to BATCH messages past the mark in SCOPE's transaction; answers how many ids it moved past. */
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

/** Whether messages were stored past the index's mark (one look at each table's end). */
async function trailing(storage: Storage): Promise<boolean> {
  const { rows } = await sql<{ behind: number }>`
    SELECT coalesce((SELECT max(id) FROM messages), 0) > (SELECT indexed_to FROM messages_fts_mark) AS behind`.execute(
    storage.db,
  );
  return Boolean(rows[0]?.behind);
}

/**
 * Brings the index up to every message stored so far, committed (SQLite; nothing on
 * PostgreSQL). Always in at least one transaction: a pass of the indexer may be under way in
 * the write group still open, whose rows this connection reads already but a search, reading
 * on a connection of its own (Storage.longReads), sees only once that group has committed.
 */
export async function catchUpMessageIndex(storage: Storage): Promise<void> {
  if (storage.engine !== "sqlite") return;
  for (;;) {
    const moved = await inTransaction(storage, indexTrailingMessages);
    if (moved === 0 || !(await trailing(storage))) return;
  }
}

/** A serving process keeps the index at most about a second behind, so a search's catch-up is short. */
export function startMessageIndexer(app: App): void {
  if (app.storage.engine !== "sqlite") return;
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
