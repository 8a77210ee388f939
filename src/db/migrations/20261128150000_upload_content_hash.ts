import type { Kysely } from "kysely";

/**
 * The SHA-256 of what a bot uploaded, so the same bytes uploaded again by the same bot are the
 * same file (one file_unique_id per content, as the compatible API gives). Other uploads leave
 * it empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("uploads").addColumn("content_hash", "text").execute();
  await db.schema
    .createIndex("uploads_owner_content")
    .on("uploads")
    .columns(["owner_id", "content_hash"])
    .where("content_hash", "is not", null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("uploads_owner_content").ifExists().execute();
  await db.schema.alterTable("uploads").dropColumn("content_hash").execute();
}
