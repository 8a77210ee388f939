import type { Kysely } from "kysely";

/**
 * conversations.invite_by: who made a group's current invite link. Joining by the link is
 * checked against the joiner's "who may message me" as if that person added them directly.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversations").addColumn("invite_by", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("conversations").dropColumn("invite_by").execute();
}
