import type { Kysely } from "kysely";

/**
 * The schema compatibility guard: `schema_guard` holds the oldest code that can use this
 * database (raised by each migration marked `breaksOlderCode`), and `nodes` each serving
 * node's version and when it was last seen, so several nodes on one database can be told
 * apart by `socialctl status`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("schema_guard")
    .addColumn("id", "integer", (c) => c.primaryKey())
    // the newest migration marked breaking: code that does not know it must not use the database
    .addColumn("min_schema", "text", (c) => c.notNull())
    // the socialctl version that applied it: the one to upgrade to
    .addColumn("min_version", "text", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("nodes")
    // host:port of the node's listener
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("version", "text", (c) => c.notNull())
    // the newest migration the node's binary knows
    .addColumn("schema", "text", (c) => c.notNull())
    .addColumn("started_at", "integer", (c) => c.notNull())
    .addColumn("seen_at", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("nodes").ifExists().execute();
  await db.schema.dropTable("schema_guard").ifExists().execute();
}
