import type { Kysely } from "kysely";

/** A group's description (0 to 255 characters; the Bot API's setChatDescription / getChat's description). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversations").addColumn("description", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversations").dropColumn("description").execute();
}
