import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * Prefix search of people and hashtags through indexes. Each hashtag keeps its number of
 * posts (the search shows it, and counting a popular tag's posts on every keystroke grew with
 * the tag). On PostgreSQL, `LIKE 'abc%'` uses an index only under the C collation, whatever
 * the database's: so the names are indexed with text_pattern_ops too (on SQLite the search
 * module asks for a range of the unique index instead).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("hashtags")
    .addColumn("post_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE hashtags SET post_count = (SELECT count(*) FROM post_hashtags ph WHERE ph.hashtag_id = hashtags.id)`.execute(
    db,
  );
  await sql`CREATE TRIGGER post_hashtags_count_insert AFTER INSERT ON post_hashtags BEGIN
    UPDATE hashtags SET post_count = post_count + 1 WHERE id = new.hashtag_id; END`.execute(db);
  await sql`CREATE TRIGGER post_hashtags_count_delete AFTER DELETE ON post_hashtags BEGIN
    UPDATE hashtags SET post_count = post_count - 1 WHERE id = old.hashtag_id; END`.execute(db);
  if (engineOf(db) === "postgres") {
    await sql`CREATE INDEX users_username_prefix ON users (username_lower text_pattern_ops)`.execute(db);
    await sql`CREATE INDEX hashtags_tag_prefix ON hashtags (tag text_pattern_ops)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") {
    await sql`DROP INDEX IF EXISTS users_username_prefix`.execute(db);
    await sql`DROP INDEX IF EXISTS hashtags_tag_prefix`.execute(db);
  }
  await sql`DROP TRIGGER IF EXISTS post_hashtags_count_insert`.execute(db);
  await sql`DROP TRIGGER IF EXISTS post_hashtags_count_delete`.execute(db);
  await db.schema.alterTable("hashtags").dropColumn("post_count").execute();
}
