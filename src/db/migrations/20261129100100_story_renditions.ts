import type { Kysely } from "kysely";

/**
 * stories.width, stories.height and stories.renditions: an image story's size and display
 * copies, taken from its upload when it is posted, so viewers get the copy that fits their
 * screen (srcset) without a read of the uploads table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("stories").addColumn("width", "integer").execute();
  await db.schema.alterTable("stories").addColumn("height", "integer").execute();
  await db.schema.alterTable("stories").addColumn("renditions", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("stories").dropColumn("renditions").execute();
  await db.schema.alterTable("stories").dropColumn("height").execute();
  await db.schema.alterTable("stories").dropColumn("width").execute();
}
