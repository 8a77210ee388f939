import { sql, type Kysely } from "kysely";
import { currentSchemaOf, engineOf } from "../engine";

/**
 * PostgreSQL: the messages' full-text index trails the sends, as SQLite's does (migration
 * 20261129150000_messages_fts_trailing). A GIN index over an expression of messages.content
 * made every send compute the message's lexemes and insert them into the index inside its
 * transaction, the largest part of what PostgreSQL spent on a send. Now a send only queues its
 * message's id (messages_fts_queue); the lexemes go into the table messages_fts, indexed by
 * GIN, in bulk passes of a serving node and before every message search
 * (src/domain/search/message-index.ts).
 *
 * Ids are queued, not read past a mark as on SQLite: PostgreSQL's sends commit out of id order,
 * so a mark could pass a message still being sent. An edit or a deletion for everyone drops a
 * message's lexemes and queues it again (a pass indexes its text as it is then, or nothing); a
 * message removed with its chat takes its lexemes along (the foreign key). A pass reads the
 * messages it indexes FOR SHARE, so an edit waits for it, and an edit under way makes the pass
 * wait: both take the message's row lock before the queue's.
 */

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  // names qualified: a function body is also run with a bare search_path (pg_dump's restore)
  const schema = await currentSchemaOf(db);
  // the index's name is the table's now (indexes and tables share one namespace)
  await sql`DROP INDEX messages_fts`.execute(db);
  await sql`CREATE TABLE messages_fts (
    message_id bigint PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    conversation_id bigint NOT NULL,
    body tsvector NOT NULL)`.execute(db);
  await sql`INSERT INTO messages_fts (message_id, conversation_id, body)
    SELECT id, conversation_id, social_message_tsvector(content) FROM messages
    WHERE kind = 'user' AND deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX messages_fts_body ON messages_fts USING gin (body)`.execute(db);
  // no foreign key: a send would pay its check; a pass drops the id of a message gone since
  await sql`CREATE TABLE messages_fts_queue (message_id bigint PRIMARY KEY)`.execute(db);
  await createMessageSent(db, schema);
  await sql`CREATE FUNCTION social_message_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM ${schema}.messages_fts WHERE message_id = old.id;
      IF new.kind = 'user' AND new.deleted_at IS NULL THEN
        INSERT INTO ${schema}.messages_fts_queue (message_id) VALUES (new.id) ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER messages_fts_changed AFTER UPDATE OF content, kind, deleted_at ON messages FOR EACH ROW
    WHEN (old.content IS DISTINCT FROM new.content OR old.kind IS DISTINCT FROM new.kind
      OR old.deleted_at IS DISTINCT FROM new.deleted_at)
    EXECUTE FUNCTION social_message_changed()`.execute(db);
}

/** The trigger that queues each stored message of a person for indexing, and its function, named in SCHEMA. */
export async function createMessageSent(db: Kysely<any>, schema: Awaited<ReturnType<typeof currentSchemaOf>>) {
  await sql`CREATE OR REPLACE FUNCTION social_message_sent() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO ${schema}.messages_fts_queue (message_id) VALUES (new.id) ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER messages_fts_sent AFTER INSERT ON messages FOR EACH ROW
    WHEN (new.kind = 'user' AND new.deleted_at IS NULL) EXECUTE FUNCTION social_message_sent()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  await sql`DROP TRIGGER messages_fts_changed ON messages`.execute(db);
  await sql`DROP TRIGGER messages_fts_sent ON messages`.execute(db);
  await sql`DROP FUNCTION social_message_changed()`.execute(db);
  await sql`DROP FUNCTION social_message_sent()`.execute(db);
  await sql`DROP TABLE messages_fts_queue`.execute(db);
  await sql`DROP TABLE messages_fts`.execute(db);
  await sql`CREATE INDEX messages_fts ON messages USING gin (social_message_tsvector(content))
    WHERE kind = 'user' AND deleted_at IS NULL`.execute(db);
}
