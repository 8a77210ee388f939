import { sql, type Kysely } from "kysely";

/**
 * users.profile_version (20261124194200_user_profile_version) also counts changes of the rest of
 * what a profile shows of the account: its bio, cover picture and video and creation time, so a
 * profile's shown columns can be kept by (id, version) like the lists' (src/domain/profiles).
 * Counters and the session, security and moderation columns still leave it as it is. Versions
 * are compared, never ordered, so the values already there need no fill.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS users_profile_version`.execute(db);
  await sql`CREATE TRIGGER users_profile_version AFTER UPDATE OF cuid, username, display_name, avatar_url, is_bot, is_system, bio, cover_url, cover_video_url, created_at ON users
    WHEN new.profile_version = old.profile_version BEGIN
    UPDATE users SET profile_version = old.profile_version + 1 WHERE id = new.id; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS users_profile_version`.execute(db);
  await sql`CREATE TRIGGER users_profile_version AFTER UPDATE OF cuid, username, display_name, avatar_url, is_bot, is_system ON users
    WHEN new.profile_version = old.profile_version BEGIN
    UPDATE users SET profile_version = old.profile_version + 1 WHERE id = new.id; END`.execute(db);
}
