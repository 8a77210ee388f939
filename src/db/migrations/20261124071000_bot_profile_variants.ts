import type { Kysely } from "kysely";

/**
 * Per-language and per-scope profile texts (descriptions, names, commands) and menu buttons
 * of bots, as one JSON object: the defaults stay in their own columns.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("bots")
    .addColumn("profile_json", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("bots").dropColumn("profile_json").execute();
}
