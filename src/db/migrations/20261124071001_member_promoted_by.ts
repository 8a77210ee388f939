import type { Kysely } from "kysely";

/** Who made an administrator one: that promoter may change or revoke the rights it gave (as in the compatible API). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversation_members").addColumn("promoted_by", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversation_members").dropColumn("promoted_by").execute();
}
