import type { Kysely } from "kysely";

/**
 * uploads.released_at: when the last thing known to use an upload went (a message deleted for
 * everyone, a post or comment deleted, a deleted account's avatar or cover). The
 * released-uploads cleanup (src/ops/cleanups.ts) removes such uploads' files unless something
 * else still references them; the index finds them without reading every upload.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("uploads").addColumn("released_at", "integer").execute();
  await db.schema.createIndex("uploads_released").on("uploads").column("released_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("uploads_released").ifExists().execute();
  await db.schema.alterTable("uploads").dropColumn("released_at").execute();
}
