import type { Kysely } from "kysely";

/**
 * Whether bots may open a chat with the account by writing first (the "who may message me"
 * setting's second half). 1 for every existing account: bots could write first before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("user_settings")
    .addColumn("bots_may_write_first", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("user_settings").dropColumn("bots_may_write_first").execute();
}
