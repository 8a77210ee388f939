import { sql, type Kysely } from "kysely";

/**
 * An account's posts (reposts included) kept as a column, as its followers are
 * (20261124100000_counters): a profile counted them on every read, an index range as long as
 * the account's posts. Triggers keep it in the statement that adds or removes a post, cascades
 * included; the column is filled here from the posts that exist.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("posts_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE users SET posts_count = (SELECT count(*) FROM posts p WHERE p.author_id = users.id)
    WHERE EXISTS (SELECT 1 FROM posts p WHERE p.author_id = users.id)`.execute(db);
  await sql`CREATE TRIGGER posts_author_count_insert AFTER INSERT ON posts BEGIN
    UPDATE users SET posts_count = posts_count + 1 WHERE id = new.author_id; END`.execute(db);
  await sql`CREATE TRIGGER posts_author_count_delete AFTER DELETE ON posts BEGIN
    UPDATE users SET posts_count = posts_count - 1 WHERE id = old.author_id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["posts_author_count_delete", "posts_author_count_insert"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await db.schema.alterTable("users").dropColumn("posts_count").execute();
}
