import type { App } from "../../app";
import type { Scope } from "../../db/transaction";
import type { Db } from "../../db";
import { findConversationById } from "../chats/access";
import { publishMessageEvent } from "../chats/notify";
import { newCuid } from "../../lib/ids";
import type { InvoiceStatus, LabeledPrice, StarInvoiceRow } from "./table";

/** Limits of an invoice (service-api.md, Limits). */
export const INVOICE_LIMITS = {
  title: 64,
  description: 255,
  payload: 128,
  maxTotal: 100_000,
  maxPrices: 20,
  label: 128,
} as const;

export interface InvoiceDraft {
  title: string;
  description: string;
  payload: string;
  startParameter: string | null;
  prices: LabeledPrice[];
}

export const invoiceTotal = (prices: LabeledPrice[]): number => prices.reduce((sum, p) => sum + p.amount, 0);

/**
 * The invoice as a message carries it (messages.invoice, shown by the Client API as
 * `invoice`). The bot's payload is private to the bot and is not part of it.
 */
export function invoiceView(draft: Pick<InvoiceDraft, "title" | "description" | "prices">, status: InvoiceStatus) {
  return {
    title: draft.title,
    description: draft.description,
    currency: "XTR",
    totalAmount: invoiceTotal(draft.prices),
    prices: draft.prices,
    status,
  };
}

/** Records the invoice behind a message the bot just sent. */
export async function createInvoice(
  app: App,
  input: InvoiceDraft & { messageId: number; conversationId: number; botId: number; botUserId: number },
  scope?: Scope,
): Promise<StarInvoiceRow> {
  const total = invoiceTotal(input.prices);
  if (!Number.isSafeInteger(total) || total < 1 || total > INVOICE_LIMITS.maxTotal)
    throw new Error(`invoice total out of range: ${total}`);
  return (scope?.db ?? app.db)
    .insertInto("star_invoices")
    .values({
      cuid: newCuid(),
      message_id: input.messageId,
      conversation_id: input.conversationId,
      bot_id: input.botId,
      bot_user_id: input.botUserId,
      title: input.title,
      description: input.description,
      payload: input.payload,
      start_parameter: input.startParameter,
      currency: "XTR",
      total_amount: total,
      prices: JSON.stringify(input.prices),
      created_at: app.clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export const findInvoiceByMessage = (db: Db, messageId: number) =>
  db.selectFrom("star_invoices").selectAll().where("message_id", "=", messageId).executeTakeFirst();

export const findInvoiceById = (db: Db, id: number) =>
  db.selectFrom("star_invoices").selectAll().where("id", "=", id).executeTakeFirst();

export const findPaymentById = (db: Db, id: number) =>
  db.selectFrom("star_payments").selectAll().where("id", "=", id).executeTakeFirst();

/** Shows the invoice's new status on its message (paid, refunded) to everyone in the chat. */
export async function showInvoiceStatus(
  app: App,
  invoice: StarInvoiceRow,
  status: InvoiceStatus,
  scope?: Scope,
): Promise<void> {
  const db = scope?.db ?? app.db;
  const view = invoiceView(
    { title: invoice.title, description: invoice.description, prices: JSON.parse(invoice.prices) as LabeledPrice[] },
    status,
  );
  const row = await db
    .updateTable("messages")
    .set({ invoice: JSON.stringify(view) })
    .where("id", "=", invoice.message_id)
    .returningAll()
    .executeTakeFirst();
  const conversation = await findConversationById(db, invoice.conversation_id);
  if (!row || !conversation) return;
  const publish = () => publishMessageEvent(app, conversation, row, "message:edited");
  if (scope) scope.afterCommit(publish);
  else await publish();
}
