import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/** Posts, likes, reposts, bookmarks, polls, hashtags, comments, and the posts full-text index. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("posts")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("author_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("content", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("images", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("repost_of_id", "integer", (c) => c.references("posts.id").onDelete("cascade"))
    .addColumn("client_post_id", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("edited_at", "integer")
    .execute();
  await db.schema.createIndex("posts_time").on("posts").columns(["created_at", "id"]).execute();
  await db.schema.createIndex("posts_author_time").on("posts").columns(["author_id", "created_at", "id"]).execute();
  await db.schema.createIndex("posts_repost_of").on("posts").column("repost_of_id").execute();
  // idempotent creation: one post per (author, clientPostId), even for concurrent duplicates
  await sql`CREATE UNIQUE INDEX posts_client_id ON posts (author_id, client_post_id) WHERE client_post_id IS NOT NULL`.execute(
    db,
  );
  // one repost of a post per account
  await sql`CREATE UNIQUE INDEX posts_one_repost ON posts (author_id, repost_of_id) WHERE repost_of_id IS NOT NULL`.execute(
    db,
  );

  const userPostPair = async (name: string, target: string, targetTable: string) => {
    await db.schema
      .createTable(name)
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn(target, "integer", (c) => c.notNull().references(`${targetTable}.id`).onDelete("cascade"))
      .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addUniqueConstraint(`${name}_pair`, [target, "user_id"])
      .execute();
    await db.schema.createIndex(`${name}_user_time`).on(name).columns(["user_id", "created_at", "id"]).execute();
  };
  await userPostPair("post_likes", "post_id", "posts");
  await userPostPair("post_bookmarks", "post_id", "posts");
  await db.schema
    .createIndex("post_likes_post_time")
    .on("post_likes")
    .columns(["post_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("polls")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("post_id", "integer", (c) => c.notNull().unique().references("posts.id").onDelete("cascade"))
    .addColumn("question", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("multiple", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("poll_options")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("poll_id", "integer", (c) => c.notNull().references("polls.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addUniqueConstraint("poll_options_position", ["poll_id", "position"])
    .execute();
  await db.schema
    .createTable("poll_votes")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("poll_id", "integer", (c) => c.notNull().references("polls.id").onDelete("cascade"))
    .addColumn("option_id", "integer", (c) => c.notNull().references("poll_options.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addUniqueConstraint("poll_votes_pair", ["option_id", "user_id"])
    .execute();
  await db.schema.createIndex("poll_votes_poll_user").on("poll_votes").columns(["poll_id", "user_id"]).execute();

  await db.schema
    .createTable("hashtags")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("tag", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("post_hashtags")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("post_id", "integer", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("hashtag_id", "integer", (c) => c.notNull().references("hashtags.id").onDelete("cascade"))
    .addUniqueConstraint("post_hashtags_pair", ["hashtag_id", "post_id"])
    .execute();
  await db.schema.createIndex("post_hashtags_post").on("post_hashtags").column("post_id").execute();

  await db.schema
    .createTable("comments")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("post_id", "integer", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("author_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("reply_to_id", "integer", (c) => c.references("comments.id").onDelete("cascade"))
    .addColumn("content", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("media", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("comments_post_time").on("comments").columns(["post_id", "created_at", "id"]).execute();
  await db.schema
    .createIndex("comments_reply_time")
    .on("comments")
    .columns(["reply_to_id", "created_at", "id"])
    .execute();
  await userPostPair("comment_likes", "comment_id", "comments");

  if (engineOf(db) === "postgres") await createPostgresSearch(db);
  else await createSqliteSearch(db);
}

async function createSqliteSearch(db: Kysely<any>): Promise<void> {
  // Full-text index of posts (search module). Rows are written by src/domain/search with the
  // text normalised there (emoji split into their own tokens); the trigger drops a post's row
  // however the post goes (delete, account removal cascade).
  await sql`CREATE VIRTUAL TABLE posts_fts USING fts5(body, tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co So Sk'")`.execute(
    db,
  );
  await sql`CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN DELETE FROM posts_fts WHERE rowid = old.id; END`.execute(
    db,
  );

  // People search by any word of username or display name (prefix, any script), kept in
  // step with the users table by triggers so every way of changing a profile is covered.
  await sql`CREATE VIRTUAL TABLE users_fts USING fts5(username, display_name, content = 'users', content_rowid = 'id', tokenize = "unicode61 remove_diacritics 2")`.execute(
    db,
  );
  await sql`CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, username, display_name) VALUES (new.id, new.username, new.display_name); END`.execute(
    db,
  );
  await sql`CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, username, display_name) VALUES ('delete', old.id, old.username, old.display_name); END`.execute(
    db,
  );
  await sql`CREATE TRIGGER users_fts_update AFTER UPDATE OF username, display_name ON users BEGIN
    INSERT INTO users_fts (users_fts, rowid, username, display_name) VALUES ('delete', old.id, old.username, old.display_name);
    INSERT INTO users_fts (rowid, username, display_name) VALUES (new.id, new.username, new.display_name); END`.execute(
    db,
  );
  await sql`INSERT INTO users_fts (users_fts) VALUES ('rebuild')`.execute(db);
}

/**
 * The same two indexes on PostgreSQL. Posts: a tsvector of the lexemes the search module
 * computes (the SQLite tokenizer's rules, emoji included, which PostgreSQL's parser drops),
 * GIN-indexed, its row going with the post's. People: an expression index over the names,
 * case and accents folded by unaccent (a trusted extension: the database owner may create it)
 * behind an IMMUTABLE wrapper, as an index expression must be.
 */
async function createPostgresSearch(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE posts_fts (post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE, body tsvector NOT NULL)`.execute(
    db,
  );
  await sql`CREATE INDEX posts_fts_body ON posts_fts USING gin (body)`.execute(db);
  await sql`CREATE EXTENSION IF NOT EXISTS unaccent`.execute(db);
  // schema-qualified: an index expression is also evaluated with a bare search_path (pg_dump's restore)
  const { rows } = await sql<{ schema: string }>`SELECT n.nspname AS schema FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`.execute(db);
  const schema = sql.id(rows[0]!.schema);
  await sql`CREATE FUNCTION social_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT ${schema}.unaccent(${sql.lit(`${rows[0]!.schema}.unaccent`)}::regdictionary, $1) $$`.execute(db);
  await sql`CREATE INDEX users_fts ON users USING gin (to_tsvector('simple'::regconfig, social_unaccent(username || ' ' || display_name)))`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") {
    await sql`DROP INDEX IF EXISTS users_fts`.execute(db);
    await sql`DROP FUNCTION IF EXISTS social_unaccent(text)`.execute(db);
  } else {
    for (const t of ["users_fts_insert", "users_fts_delete", "users_fts_update", "posts_fts_delete"])
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
    await sql`DROP TABLE IF EXISTS users_fts`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS posts_fts`.execute(db);
  for (const t of [
    "comment_likes",
    "comments",
    "post_hashtags",
    "hashtags",
    "poll_votes",
    "poll_options",
    "polls",
    "post_bookmarks",
    "post_likes",
    "posts",
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
