import type { Kysely } from "kysely";

/**
 * Link previews. `link_previews` keeps what the server read of a page (its OpenGraph, Twitter
 * and meta tags) by the page's URL until `expires_at`; a fetch that found nothing to show is
 * kept too, for a shorter time, so a dead site is not asked again by every post naming it.
 * Posts and messages carry their own preview state in `link_preview` (JSON: the link, whether
 * its author removed the preview, the preview once known); null when the text has no link.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("link_previews")
    .addColumn("url", "text", (c) => c.primaryKey())
    // JSON {title, description, imageUrl, siteName}; null when the page gave nothing to show
    .addColumn("preview", "text")
    .addColumn("fetched_at", "integer", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("link_previews_expiry").on("link_previews").column("expires_at").execute();
  await db.schema.alterTable("posts").addColumn("link_preview", "text").execute();
  await db.schema.alterTable("messages").addColumn("link_preview", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("link_preview").execute();
  await db.schema.alterTable("posts").dropColumn("link_preview").execute();
  await db.schema.dropTable("link_previews").ifExists().execute();
}
