import type { App } from "../../app";
import type { Scope } from "../../db/transaction";
import type { Db } from "../../db";
import { findConversationById } from "../chats/access";
import { publishMessageEvent } from "../chats/notify";
import { AppError } from "../../lib/errors";
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

/** A refusal of an invoice's terms, in the compatible API's words (the Bot API prefixes "Bad Request: "). */
const invoiceInvalid = (reason: string) => new AppError(400, "INVOICE_INVALID", reason);

function labeledPrices(raw: unknown): LabeledPrice[] {
  if (!Array.isArray(raw)) throw invoiceInvalid("prices must be an Array of LabeledPrice");
  if (raw.length === 0) throw invoiceInvalid("prices must be non-empty");
  if (raw.length > INVOICE_LIMITS.maxPrices)
    throw invoiceInvalid(`too many prices (maximum ${INVOICE_LIMITS.maxPrices})`);
  return raw.map((p, i) => {
    if (!p || typeof p !== "object") throw invoiceInvalid(`prices[${i}] must be a LabeledPrice object`);
    const { label, amount } = p as { label?: unknown; amount?: unknown };
    if (typeof label !== "string" || label.trim() === "") throw invoiceInvalid(`prices[${i}].label is empty`);
    if (label.length > INVOICE_LIMITS.label)
      throw invoiceInvalid(`prices[${i}].label is too long (maximum ${INVOICE_LIMITS.label})`);
    const n = typeof amount === "string" && /^\d{1,9}$/.test(amount) ? Number(amount) : amount;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1)
      throw invoiceInvalid(`prices[${i}].amount must be a positive Integer number of stars`);
    return { label, amount: n };
  });
}

/**
 * The terms of an invoice as a bot gives them (sendInvoice, createInvoiceLink), checked: stars
 * only, no payment provider, 1 to INVOICE_LIMITS.maxPrices prices adding up to at most
 * INVOICE_LIMITS.maxTotal. Lengths of the texts are the surface's to check.
 */
export function buildInvoiceDraft(input: {
  title: string;
  description: string;
  payload: string;
  startParameter: string | null;
  currency: string;
  hasProviderToken: boolean;
  prices: unknown;
}): InvoiceDraft {
  if (input.currency !== "XTR") throw invoiceInvalid("CURRENCY_INVALID: only XTR (stars) is accepted");
  if (input.hasProviderToken)
    throw invoiceInvalid("PAYMENT_PROVIDER_INVALID: payments are in stars only, without providers");
  const prices = labeledPrices(input.prices);
  if (invoiceTotal(prices) > INVOICE_LIMITS.maxTotal)
    throw invoiceInvalid(`CURRENCY_TOTAL_AMOUNT_INVALID: the total must be 1 to ${INVOICE_LIMITS.maxTotal} stars`);
  const { title, description, payload, startParameter } = input;
  return { title, description, payload, startParameter, prices };
}

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

/** A draft as the columns of star_invoices and star_invoice_links store it. */
export const invoiceColumns = (draft: InvoiceDraft) => ({
  title: draft.title,
  description: draft.description,
  payload: draft.payload,
  start_parameter: draft.startParameter,
  total_amount: invoiceTotal(draft.prices),
  prices: JSON.stringify(draft.prices),
});

/** Records the invoice behind a message the bot just sent. */
export async function createInvoice(
  app: App,
  input: InvoiceDraft & {
    messageId: number;
    conversationId: number;
    botId: number;
    botUserId: number;
    linkId?: number;
  },
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
      ...invoiceColumns(input),
      currency: "XTR",
      link_id: input.linkId ?? null,
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
