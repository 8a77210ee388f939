import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * SQLite: the messages' full-text index trails the table instead of following each insert.
 * FTS5 writes its pending terms out as a segment of their own at every savepoint, and every
 * send runs in a savepoint of its group's commit, so an index kept by an insert trigger more
 * than doubled a send's cost. Messages past messages_fts_mark.indexed_to are indexed in bulk
 * by the serving process, and before every message search (src/domain/search/message-index.ts);
 * edits and deletions of messages already indexed are still followed by triggers. PostgreSQL's
 * GIN index is not touched.
 */

const FOLDED = (column: string) => sql.raw(`replace(replace(${column}, 'ё', 'е'), 'Ё', 'Е')`);

const INDEXED = sql.raw("old.id <= (SELECT indexed_to FROM messages_fts_mark)");

async function followingTriggers(db: Kysely<any>, when: ReturnType<typeof sql.raw> | null): Promise<void> {
  const indexedOnly = when ? sql`WHEN ${when}` : sql``;
  await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, kind, deleted_at ON messages ${indexedOnly} BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts (rowid, body) SELECT new.id, ${FOLDED("new.content")}
      WHERE new.kind = 'user' AND new.deleted_at IS NULL; END`.execute(db);
  const deleted = when ? sql`AND ${when}` : sql``;
  await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN old.kind = 'user' AND old.deleted_at IS NULL ${deleted} BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id; END`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  for (const t of ["messages_fts_insert", "messages_fts_update", "messages_fts_delete"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  // one row: every message up to indexed_to is in the index (as it reads now)
  await sql`CREATE TABLE messages_fts_mark (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_to INTEGER NOT NULL)`.execute(
    db,
  );
  await sql`INSERT INTO messages_fts_mark (id, indexed_to) SELECT 1, coalesce(max(id), 0) FROM messages`.execute(db);
  await followingTriggers(db, INDEXED);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await sql`INSERT INTO messages_fts (rowid, body) SELECT id, ${FOLDED("content")} FROM messages
    WHERE id > (SELECT indexed_to FROM messages_fts_mark) AND kind = 'user' AND deleted_at IS NULL`.execute(db);
  for (const t of ["messages_fts_update", "messages_fts_delete"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`DROP TABLE messages_fts_mark`.execute(db);
  await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.kind = 'user' AND new.deleted_at IS NULL BEGIN
    INSERT INTO messages_fts (rowid, body) VALUES (new.id, ${FOLDED("new.content")}); END`.execute(db);
  await followingTriggers(db, null);
}
