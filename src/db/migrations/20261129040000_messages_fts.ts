import { sql, type Kysely } from "kysely";
import { currentSchemaOf, engineOf } from "../engine";

/**
 * A full-text index of chat messages, so "search my messages" reads the index's newest hits
 * instead of every message of every chat a person is in. Only what search shows is indexed
 * (people's messages, not deleted for everyone); the index follows every way a message
 * changes (sends, edits, deletes for everyone, a chat's removal cascading) by itself, on
 * SQLite through triggers, on PostgreSQL as a partial expression index. Search also calls
 * social_search_within (its time budget, see src/domain/search/budget.ts); on SQLite the
 * server registers that function on its connection, on PostgreSQL it is created here.
 */

/** ё is е to readers of Russian; the tokenizers' diacritics folding covers Latin only (as normalize.ts does for posts). */
export const FOLDED = (column: string) => sql.raw(`replace(replace(${column}, 'ё', 'е'), 'Ё', 'Е')`);

const TOKENIZE = sql.lit("unicode61 remove_diacritics 2 categories 'L* N* Co So Sk'");
/**
 * Search's last word is a prefix (results while typing); without an index of prefixes FTS5
 * merges the whole doclist of every word the prefix starts, so a common word cost what all its
 * rows do. Prefixes of these lengths are indexed for posts; a longer one is mostly a rare word.
 * Messages go without: every indexed prefix is another index entry per word of every message
 * sent, which cost the send path more than the send benchmark's target leaves (search's time
 * budget bounds a common prefix instead).
 */
const PREFIXES = sql.lit("2 3 4 5 6");

/** The code points PostgreSQL's parser drops that are indexed as lexemes of their own: emoji and symbols. */
export const EMOJI = "[\\U0001F000-\\U0001FAFF\\u2600-\\u27BF\\u2B00-\\u2BFF]";

/** social_message_tsvector's signature and body as this migration makes it, names in SCHEMA. */
export const messageTsvector = (
  schema: Awaited<ReturnType<typeof currentSchemaOf>>,
) => sql`social_message_tsvector(body text)
      RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
      SELECT to_tsvector('simple'::regconfig, ${schema}.social_unaccent(${FOLDED("body")}))
        || array_to_tsvector(ARRAY(SELECT DISTINCT m[1] FROM regexp_matches(body, ${sql.raw(`'(${EMOJI})'`)}, 'g') AS m)) $$`;

/** posts_fts again with OPTIONS (its rows copied over): FTS5 takes options only at creation. */
async function rebuildPostsIndex(db: Kysely<any>, options: ReturnType<typeof sql>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE posts_fts_next USING fts5(body, tokenize = ${TOKENIZE}${options})`.execute(db);
  await sql`INSERT INTO posts_fts_next (rowid, body) SELECT rowid, body FROM posts_fts`.execute(db);
  // the trigger that names it goes while it is renamed (SQLite checks triggers on a rename)
  await sql`DROP TRIGGER IF EXISTS posts_fts_delete`.execute(db);
  await sql`DROP TABLE posts_fts`.execute(db);
  await sql`ALTER TABLE posts_fts_next RENAME TO posts_fts`.execute(db);
  await sql`CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN DELETE FROM posts_fts WHERE rowid = old.id; END`.execute(
    db,
  );
}

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") {
    // PostgreSQL's parser drops emoji: they are added as lexemes of their own. Names are
    // schema-qualified: a function body is also run with a bare search_path (pg_dump's restore)
    const schema = await currentSchemaOf(db);
    await sql`CREATE FUNCTION ${messageTsvector(schema)}`.execute(db);
    await sql`CREATE INDEX messages_fts ON messages USING gin (social_message_tsvector(content))
      WHERE kind = 'user' AND deleted_at IS NULL`.execute(db);
    // statement_timestamp: the database's own clock, so a node's clock never shortens a budget
    await sql`CREATE FUNCTION social_search_within(budget_ms double precision) RETURNS boolean
      LANGUAGE plpgsql VOLATILE AS $$ BEGIN
        IF clock_timestamp() > statement_timestamp() + budget_ms * interval '1 millisecond' THEN
          RAISE EXCEPTION 'social_search_budget' USING ERRCODE = '57014';
        END IF;
        RETURN true;
      END $$`.execute(db);
    return;
  }
  // contentless: the text lives in messages; a deleted row is dropped by its rowid alone
  await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(body, content = '', contentless_delete = 1,
    tokenize = ${TOKENIZE})`.execute(db);
  await rebuildPostsIndex(db, sql`, prefix = ${PREFIXES}`);
  await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.kind = 'user' AND new.deleted_at IS NULL BEGIN
    INSERT INTO messages_fts (rowid, body) VALUES (new.id, ${FOLDED("new.content")}); END`.execute(db);
  await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, kind, deleted_at ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts (rowid, body) SELECT new.id, ${FOLDED("new.content")}
      WHERE new.kind = 'user' AND new.deleted_at IS NULL; END`.execute(db);
  await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN old.kind = 'user' AND old.deleted_at IS NULL BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id; END`.execute(db);
  await sql`INSERT INTO messages_fts (rowid, body) SELECT id, ${FOLDED("content")} FROM messages
    WHERE kind = 'user' AND deleted_at IS NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") {
    await sql`DROP FUNCTION IF EXISTS social_search_within(double precision)`.execute(db);
    await sql`DROP INDEX IF EXISTS messages_fts`.execute(db);
    await sql`DROP FUNCTION IF EXISTS social_message_tsvector(text)`.execute(db);
    return;
  }
  for (const t of ["messages_fts_insert", "messages_fts_update", "messages_fts_delete"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`DROP TABLE IF EXISTS messages_fts`.execute(db);
  await rebuildPostsIndex(db, sql``);
}
