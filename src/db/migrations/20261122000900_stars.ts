import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * Stars: wallets (one row per account: a person's balance, a bot's held and withdrawable
 * income), the ledger (every change of any wallet is a row), invoices sent by bots and
 * payments made on them. Balances can never go negative (CHECK), and every wallet equals
 * the sum of its ledger rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const pg = engineOf(db) === "postgres";
  await db.schema
    .createTable("star_wallets")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    // balance: a person's spendable stars; held / income: a bot's income during and after the hold
    .addColumn("account", "text", (c) => c.notNull().check(sql`account IN ('balance', 'held', 'income')`))
    .addColumn("balance", "integer", (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`balance >= 0`),
    )
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("star_wallets_account")
    .unique()
    .on("star_wallets")
    .columns(["user_id", "account"])
    .execute();

  await db.schema
    .createTable("star_ledger")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("wallet_id", "integer", (c) => c.notNull().references("star_wallets.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("account", "text", (c) => c.notNull())
    .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount <> 0`))
    .addColumn("balance_after", "integer", (c) => c.notNull().check(sql`balance_after >= 0`))
    .addColumn("kind", "text", (c) =>
      c.notNull().check(sql`kind IN ('grant', 'payment', 'refund', 'hold_release', 'withdrawal', 'gift')`),
    )
    // charge id of a payment/refund, id of a gift or withdrawal (shared by its two rows)
    .addColumn("reference", "text")
    .addColumn("counterparty_id", "integer", (c) => c.references("users.id"))
    .addColumn("note", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("star_ledger_account")
    .on("star_ledger")
    .columns(["user_id", "account", "created_at", "id"])
    .execute();
  await db.schema.createIndex("star_ledger_kind").on("star_ledger").columns(["kind"]).execute();

  await db.schema
    .createTable("star_invoices")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    // the chats migration sorts after this one: PostgreSQL, which checks that a referenced table
    // exists, gets these two references from it (SQLite resolves them when used)
    .addColumn("message_id", "integer", (c) =>
      pg ? c.notNull().unique() : c.notNull().unique().references("messages.id").onDelete("cascade"),
    )
    .addColumn("conversation_id", "integer", (c) =>
      pg ? c.notNull() : c.notNull().references("conversations.id").onDelete("cascade"),
    )
    .addColumn("bot_id", "integer", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("bot_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("start_parameter", "text")
    .addColumn("currency", "text", (c) => c.notNull().defaultTo("XTR"))
    .addColumn("total_amount", "integer", (c) => c.notNull().check(sql`total_amount BETWEEN 1 AND 100000`))
    .addColumn("prices", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .defaultTo("unpaid")
        .check(sql`status IN ('unpaid', 'paid', 'refunded')`),
    )
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("paid_at", "integer")
    .execute();

  await db.schema
    .createTable("star_payments")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    // telegram_payment_charge_id (and provider_payment_charge_id): what refundStarPayment names
    .addColumn("charge_id", "text", (c) => c.notNull().unique())
    // an invoice is paid at most once
    .addColumn("invoice_id", "integer", (c) => c.notNull().unique().references("star_invoices.id"))
    .addColumn("bot_id", "integer", (c) => c.notNull().references("bots.id"))
    .addColumn("bot_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("payer_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("conversation_id", "integer", (c) => c.notNull())
    .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount > 0`))
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('paid', 'refunded')`))
    .addColumn("hold_until", "integer", (c) => c.notNull())
    // set when the hold ended and the amount moved from held to withdrawable income
    .addColumn("released_at", "integer")
    .addColumn("refunded_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("star_payments_bot")
    .on("star_payments")
    .columns(["bot_user_id", "status", "released_at", "hold_until"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("star_payments").execute();
  await db.schema.dropTable("star_invoices").execute();
  await db.schema.dropTable("star_ledger").execute();
  await db.schema.dropTable("star_wallets").execute();
}
