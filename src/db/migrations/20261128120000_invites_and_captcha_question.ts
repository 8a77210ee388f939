import type { Kysely } from "kysely";

/**
 * Sign-up invites (registration mode `invite`) and the captcha's text alternative: each captcha
 * keeps the accepted answers of its question beside the answer of its picture.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("auth_invites")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("code", "text", (c) => c.notNull().unique())
    .addColumn("created_by", "integer", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("max_uses", "integer", (c) => c.notNull())
    .addColumn("uses", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("revoked_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_invites_created").on("auth_invites").column("created_at").execute();
  await db.schema.alterTable("auth_captchas").addColumn("question_answers", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("auth_captchas").dropColumn("question_answers").execute();
  await db.schema.dropTable("auth_invites").execute();
}
