import type { Kysely } from "kysely";

/**
 * nodes.readiness: what each serving node last said of its own readiness (its /readyz answer
 * as JSON, written with every heartbeat), so the admin area and `socialctl status` show every
 * node's, not only the one answering. Null for a node of an older version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("nodes").addColumn("readiness", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("nodes").dropColumn("readiness").execute();
}
