import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * SQLite: the messages' full-text index moves out of the instance database into a database
 * file of its own beside it (Storage.searchIndexPath), written by a worker thread
 * (src/domain/search/index-worker.ts): writing the index, with the prefixes that keep a search's
 * last word cheap, then neither runs on the serving thread nor takes the instance database's
 * write lock. The worker follows the messages table by its ids; edits and removals of messages
 * are queued here, in messages_search_changes, by triggers (whoever writes), for it to take in.
 * The worker makes the index again from the messages when the file is new. PostgreSQL's index
 * (a table of its own) is not touched.
 */

const FOLDED = (column: string) => sql.raw(`replace(replace(${column}, 'ё', 'е'), 'Ё', 'Е')`);
const TOKENIZE = sql.lit("unicode61 remove_diacritics 2 categories 'L* N* Co So Sk'");

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  for (const t of ["messages_fts_update", "messages_fts_delete"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`DROP TABLE IF EXISTS messages_fts`.execute(db);
  await sql`DROP TABLE IF EXISTS messages_fts_mark`.execute(db);
  // AUTOINCREMENT: ids never come back once the taken-in rows are deleted, so the worker's mark holds
  await sql`CREATE TABLE messages_search_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL)`.execute(db);
  await sql`CREATE TRIGGER messages_search_edited AFTER UPDATE OF content, kind, deleted_at ON messages
    WHEN old.content IS NOT new.content OR old.kind IS NOT new.kind
      OR (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) BEGIN
    INSERT INTO messages_search_changes (message_id) VALUES (old.id); END`.execute(db);
  await sql`CREATE TRIGGER messages_search_removed AFTER DELETE ON messages
    WHEN old.kind = 'user' AND old.deleted_at IS NULL BEGIN
    INSERT INTO messages_search_changes (message_id) VALUES (old.id); END`.execute(db);
}

/** Back to the index in the instance database (migration 20261129150000_messages_fts_trailing), every message indexed. */
export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await sql`DROP TRIGGER IF EXISTS messages_search_edited`.execute(db);
  await sql`DROP TRIGGER IF EXISTS messages_search_removed`.execute(db);
  await sql`DROP TABLE messages_search_changes`.execute(db);
  await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(body, content = '', contentless_delete = 1,
    tokenize = ${TOKENIZE})`.execute(db);
  await sql`INSERT INTO messages_fts (rowid, body) SELECT id, ${FOLDED("content")} FROM messages
    WHERE kind = 'user' AND deleted_at IS NULL`.execute(db);
  await sql`CREATE TABLE messages_fts_mark (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_to INTEGER NOT NULL)`.execute(
    db,
  );
  await sql`INSERT INTO messages_fts_mark (id, indexed_to) SELECT 1, coalesce(max(id), 0) FROM messages`.execute(db);
  const indexed = sql.raw("old.id <= (SELECT indexed_to FROM messages_fts_mark)");
  await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, kind, deleted_at ON messages WHEN ${indexed} BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts (rowid, body) SELECT new.id, ${FOLDED("new.content")}
      WHERE new.kind = 'user' AND new.deleted_at IS NULL; END`.execute(db);
  await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN old.kind = 'user' AND old.deleted_at IS NULL AND ${indexed} BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id; END`.execute(db);
}
