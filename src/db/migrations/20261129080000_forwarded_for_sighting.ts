import type { Kysely } from "kysely";

/**
 * nodes.forwarded_for_seen_at: when the node last got a request carrying X-Forwarded-For while
 * trustProxy was off (behind a proxy every visitor then shares one address's rate limits), so
 * `socialctl doctor` can say so.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("nodes").addColumn("forwarded_for_seen_at", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("nodes").dropColumn("forwarded_for_seen_at").execute();
}
