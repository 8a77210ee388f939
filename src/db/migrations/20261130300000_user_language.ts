import type { Kysely } from "kysely";

/**
 * users.language: the language the server writes to the person in (mails, pushes, notices from
 * the system account), one of src/locales/languages.ts's codes; null follows the instance's
 * default. Bots' User objects show it as `language_code`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("language", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("language").execute();
}
