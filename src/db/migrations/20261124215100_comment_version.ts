import { sql, type Kysely } from "kysely";

/**
 * A comment's version (comments.version): 0 when stored, one more on every change of its row
 * (its like and reply counters, which triggers keep), by a trigger, whoever makes it (this
 * process, the CLI, another node). The part of a comment's view that is the same for every
 * reader can then be kept by (id, version): a page reads two numbers per comment instead of its
 * columns, as post views do with posts.version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("comments")
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // WHEN: the trigger's own UPDATE changes the version, so it does not run again for it
  await sql`CREATE TRIGGER comments_version AFTER UPDATE ON comments WHEN new.version = old.version BEGIN
    UPDATE comments SET version = old.version + 1 WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS comments_version`.execute(db);
  await db.schema.alterTable("comments").dropColumn("version").execute();
}
