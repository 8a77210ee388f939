import { sql, type Kysely } from "kysely";

/** Sign-in extras: captchas, one-time codes, QR logins, banned devices, TOTP enrolment state. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("totp_pending_secret", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_last_step", "integer").execute();

  await db.schema
    .createTable("auth_captchas")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("answer", "text", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_captchas_expires").on("auth_captchas").column("expires_at").execute();

  await db.schema
    .createTable("auth_codes")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("token_hash", "text")
    .addColumn("code_hash", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("used_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX auth_codes_token ON auth_codes (token_hash) WHERE token_hash IS NOT NULL`.execute(db);
  await db.schema.createIndex("auth_codes_user").on("auth_codes").columns(["user_id", "purpose", "used_at"]).execute();

  await db.schema
    .createTable("qr_logins")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("approved_at", "integer")
    .addColumn("claimed_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("banned_devices")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("device_id", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_device").on("sessions").column("device_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("sessions_device").execute();
  await db.schema.dropTable("banned_devices").execute();
  await db.schema.dropTable("qr_logins").execute();
  await db.schema.dropTable("auth_codes").execute();
  await db.schema.dropTable("auth_captchas").execute();
  await db.schema.alterTable("users").dropColumn("totp_last_step").execute();
  await db.schema.alterTable("users").dropColumn("totp_pending_secret").execute();
}
