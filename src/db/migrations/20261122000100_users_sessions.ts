import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("email", "text")
    .addColumn("username", "text", (c) => c.notNull())
    .addColumn("username_lower", "text", (c) => c.notNull().unique())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("bio", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("avatar_url", "text")
    .addColumn("cover_url", "text")
    .addColumn("cover_video_url", "text")
    .addColumn("password_hash", "text")
    .addColumn("is_admin", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_bot", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_system", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("email_verified_at", "integer")
    .addColumn("disabled_at", "integer")
    .addColumn("posting_blocked_until", "integer")
    .addColumn("two_factor_method", "text", (c) => c.notNull().defaultTo("none"))
    .addColumn("totp_secret", "text")
    .addColumn("recovery_codes", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addColumn("deleted_at", "integer")
    .execute();
  // e-mail is unique among accounts that have one (bots and the system account have none)
  await sql`CREATE UNIQUE INDEX users_email_lower ON users (lower(email)) WHERE email IS NOT NULL`.execute(db);

  await db.schema
    .createTable("sessions")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("access_hash", "text", (c) => c.notNull())
    .addColumn("access_expires_at", "integer", (c) => c.notNull())
    .addColumn("refresh_hash", "text", (c) => c.notNull())
    .addColumn("prev_refresh_hash", "text")
    .addColumn("refresh_expires_at", "integer", (c) => c.notNull())
    .addColumn("refreshed_at", "integer")
    .addColumn("user_agent", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("ip", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("device_id", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("last_seen_at", "integer", (c) => c.notNull())
    .addColumn("revoked_at", "integer")
    .execute();
  await db.schema.createIndex("sessions_user").on("sessions").columns(["user_id", "revoked_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sessions").execute();
  await db.schema.dropTable("users").execute();
}
