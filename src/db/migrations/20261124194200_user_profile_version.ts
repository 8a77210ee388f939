import { sql, type Kysely } from "kysely";

/**
 * An account's profile version (users.profile_version): one more on every change of what lists
 * show of an account (cuid, username, display name, picture, bot and system flags), by a
 * trigger, so no write path needs code for it and a change made by another process or node
 * counts too; counters and other columns leave it as it is. Those columns can then be kept by
 * (id, version): the chat list reads two numbers per account instead of its text columns.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("profile_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // WHEN: the trigger's own UPDATE changes the version, so it does not run again for it
  await sql`CREATE TRIGGER users_profile_version AFTER UPDATE OF cuid, username, display_name, avatar_url, is_bot, is_system ON users
    WHEN new.profile_version = old.profile_version BEGIN
    UPDATE users SET profile_version = old.profile_version + 1 WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS users_profile_version`.execute(db);
  await db.schema.alterTable("users").dropColumn("profile_version").execute();
}
