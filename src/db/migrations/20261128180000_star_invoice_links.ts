import type { Kysely } from "kysely";

/**
 * Invoice links a bot made with createInvoiceLink: the invoice without a message, opened by its
 * unguessable slug. Anyone who opens one may pay it; each payment gets its own invoice in the
 * payer's private chat with the bot (star_invoices.link_id names the link it came from).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("star_invoice_links")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("bot_id", "integer", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("bot_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("start_parameter", "text")
    .addColumn("total_amount", "integer", (c) => c.notNull())
    .addColumn("prices", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable("star_invoices")
    .addColumn("link_id", "integer", (c) => c.references("star_invoice_links.id").onDelete("set null"))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("star_invoices").dropColumn("link_id").execute();
  await db.schema.dropTable("star_invoice_links").execute();
}
