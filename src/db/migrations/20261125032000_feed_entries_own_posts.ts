import { sql, type Kysely } from "kysely";

/**
 * A reader's own posts join their feed_entries (owner = author), so a page of the following
 * feed is one walk of the reader's rows. It was two, the entries and the reader's own posts
 * (posts_author_time), merged by a UNION ALL that sorted each arm's LIMIT + 1 rows in a
 * temporary B-tree and then the whole, a good part of the page's SQLite time. Filled
 * for existing posts; a post's insert adds its author's entry (a deleted post goes by cascade,
 * as every entry does). The unfollow and mute triggers now leave a row that names the same
 * account on both sides alone, so such a row (none is made by the app) cannot take a reader's
 * own entries out; the follow and unmute ones already did.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    SELECT p.author_id, p.id, p.author_id, p.repost_of_id, p.created_at FROM posts p`.execute(db);
  await sql`CREATE TRIGGER feed_entries_own_post AFTER INSERT ON posts BEGIN
    INSERT INTO feed_entries (owner_id, post_id, author_id, repost_of_id, created_at)
    VALUES (new.author_id, new.id, new.author_id, new.repost_of_id, new.created_at); END`.execute(db);
  await sql`DROP TRIGGER IF EXISTS feed_entries_follow_delete`.execute(db);
  await sql`CREATE TRIGGER feed_entries_follow_delete AFTER DELETE ON follows WHEN old.follower_id <> old.followee_id BEGIN
    DELETE FROM feed_entries WHERE owner_id = old.follower_id AND author_id = old.followee_id; END`.execute(db);
  await sql`DROP TRIGGER IF EXISTS feed_entries_mute_insert`.execute(db);
  await sql`CREATE TRIGGER feed_entries_mute_insert AFTER INSERT ON mutes WHEN new.muter_id <> new.muted_id BEGIN
    DELETE FROM feed_entries WHERE owner_id = new.muter_id AND author_id = new.muted_id; END`.execute(db);
}

/** feed_entries as 20261124193000_feed_entries made it: followed accounts' posts only. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS feed_entries_own_post`.execute(db);
  await sql`DELETE FROM feed_entries WHERE owner_id = author_id`.execute(db);
  await sql`DROP TRIGGER IF EXISTS feed_entries_follow_delete`.execute(db);
  await sql`CREATE TRIGGER feed_entries_follow_delete AFTER DELETE ON follows BEGIN
    DELETE FROM feed_entries WHERE owner_id = old.follower_id AND author_id = old.followee_id; END`.execute(db);
  await sql`DROP TRIGGER IF EXISTS feed_entries_mute_insert`.execute(db);
  await sql`CREATE TRIGGER feed_entries_mute_insert AFTER INSERT ON mutes BEGIN
    DELETE FROM feed_entries WHERE owner_id = new.muter_id AND author_id = new.muted_id; END`.execute(db);
}
