import type { Kysely } from "kysely";

/**
 * Display renditions and content warnings. `uploads.renditions` lists the smaller WebP copies
 * of an image made for display (JSON array of {key, width, height, size}); null when none were
 * made (not an image, or uploaded before them: `socialctl media rebuild-derived` makes them).
 * Posts and comments take a content warning the text and media are collapsed behind.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("uploads").addColumn("renditions", "text").execute();
  await db.schema.alterTable("posts").addColumn("content_warning", "text").execute();
  await db.schema.alterTable("comments").addColumn("content_warning", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("comments").dropColumn("content_warning").execute();
  await db.schema.alterTable("posts").dropColumn("content_warning").execute();
  await db.schema.alterTable("uploads").dropColumn("renditions").execute();
}
