import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * The following feed kept on write: one row per (reader, post by an account the reader follows
 * and has not muted). A page of the following feed is then a walk of the reader's own rows
 * (plus the reader's own posts, read from posts_author_time), whatever the reader follows and
 * however many posts exist, rather than a search of the posts table (slow on a large instance,
 * worst for a reader following few). Triggers keep it in the statement that changes the rows, so every
 * write path (createPost, a follow, a block's removed follows, a mute, an account removal, a
 * post's deletion by cascade) updates it inside its own transaction:
 * - a post fans out to its author's followers who have not muted the author;
 * - a follow (not muted) copies the followee's posts in, an unfollow takes them out;
 * - a mute takes the muted account's posts out, an unmute (still following) copies them back;
 * - a deleted post or reader goes by cascade.
 * Blocks remove follows (relations/service.ts setBlocked), and a reader never sees blocked,
 * deleted or disabled authors: the read still checks those, as every list does.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("feed_entries")
    .addColumn("owner_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("post_id", "integer", (c) => c.notNull().references("posts.id").onDelete("cascade"))
    .addColumn("author_id", "integer", (c) => c.notNull())
    .addColumn("repost_of_id", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    // the page walk's order; on SQLite the table is that index (no rowid lookup per entry)
    .addPrimaryKeyConstraint("feed_entries_pk", ["owner_id", "created_at", "post_id"])
    .$call((t) => (engineOf(db) === "sqlite" ? t.modifyEnd(sql`WITHOUT ROWID`) : t))
    .execute();
  // an unfollow's or a mute's delete, and a post's cascade
  await db.schema
    .createIndex("feed_entries_owner_author")
    .on("feed_entries")
    .columns(["owner_id", "author_id"])
    .execute();
  await db.schema.createIndex("feed_entries_post").on("feed_entries").column("post_id").execute();

  await sql`INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    SELECT f.follower_id, p.id, p.author_id, p.repost_of_id, p.created_at
    FROM follows f JOIN posts p ON p.author_id = f.followee_id
    WHERE f.follower_id <> f.followee_id
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter_id = f.follower_id AND m.muted_id = f.followee_id)`.execute(
    db,
  );

  await sql`CREATE TRIGGER feed_entries_post_insert AFTER INSERT ON posts BEGIN
    INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    SELECT f.follower_id, new.id, new.author_id, new.repost_of_id, new.created_at FROM follows f
    WHERE f.followee_id = new.author_id AND f.follower_id <> new.author_id
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter_id = f.follower_id AND m.muted_id = new.author_id); END`.execute(
    db,
  );
  await sql`CREATE TRIGGER feed_entries_follow_insert AFTER INSERT ON follows WHEN new.follower_id <> new.followee_id BEGIN
    INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    SELECT new.follower_id, p.id, p.author_id, p.repost_of_id, p.created_at FROM posts p
    WHERE p.author_id = new.followee_id
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter_id = new.follower_id AND m.muted_id = new.followee_id); END`.execute(
    db,
  );
  await sql`CREATE TRIGGER feed_entries_follow_delete AFTER DELETE ON follows BEGIN
    DELETE FROM feed_entries WHERE owner_id = old.follower_id AND author_id = old.followee_id; END`.execute(db);
  await sql`CREATE TRIGGER feed_entries_mute_insert AFTER INSERT ON mutes BEGIN
    DELETE FROM feed_entries WHERE owner_id = new.muter_id AND author_id = new.muted_id; END`.execute(db);
  await sql`CREATE TRIGGER feed_entries_mute_delete AFTER DELETE ON mutes WHEN old.muter_id <> old.muted_id BEGIN
    INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    SELECT old.muter_id, p.id, p.author_id, p.repost_of_id, p.created_at FROM posts p
    WHERE p.author_id = old.muted_id
      AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = old.muter_id AND f.followee_id = old.muted_id); END`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "feed_entries_mute_delete",
    "feed_entries_mute_insert",
    "feed_entries_follow_delete",
    "feed_entries_follow_insert",
    "feed_entries_post_insert",
  ])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.dropTable("feed_entries").execute();
}
