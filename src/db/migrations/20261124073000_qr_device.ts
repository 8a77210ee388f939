import type { Kysely } from "kysely";

/**
 * QR login requests remember which device asked (so the approving person sees it) and can be
 * refused instead of left to expire.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("qr_logins").addColumn("user_agent", "text").execute();
  await db.schema.alterTable("qr_logins").addColumn("ip", "text").execute();
  await db.schema.alterTable("qr_logins").addColumn("refused_at", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["refused_at", "ip", "user_agent"])
    await db.schema.alterTable("qr_logins").dropColumn(column).execute();
}
