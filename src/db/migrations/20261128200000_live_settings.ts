import type { Kysely } from "kysely";

/**
 * live_settings: the settings an administrator changed on a running instance (registration,
 * blocked words, limits, the instance's identity), one row per key. Every node of the instance
 * reads them from here, so a change made through one node applies on all; a row overrides the
 * key's value in a node's config file.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("live_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    // the value as JSON (a string, number, boolean or array of strings)
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    // the administrator's account id; null when set with `socialctl config set`
    .addColumn("updated_by", "integer")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("live_settings").ifExists().execute();
}
