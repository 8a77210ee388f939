import type { App } from "../../app";
import { findBotByUserId } from "../../domain/bots/service";
import { enqueueUpdate } from "../../domain/bots/updates";
import { findConversationById, findMessageById } from "../../domain/chats/access";
import { answerQuery, cancelQuery } from "../../domain/payments/checkout";
import { refundPayment, type RefundOutcome } from "../../domain/payments/income";
import {
  createInvoice,
  findInvoiceById,
  findPaymentById,
  INVOICE_LIMITS,
  invoiceTotal,
  invoiceView,
} from "../../domain/payments/invoices";
import type { LabeledPrice } from "../../domain/payments/table";
import { findUserById } from "../../domain/users/service";
import { chatViewFor, resolveChat } from "../chats";
import type { BotContext, MethodTable } from "../context";
import { badRequest } from "../errors";
import { parseReplyMarkup } from "../markup";
import { inlineButtons } from "../../domain/bots/buttons";
import { serializeMessage, serializeUser } from "../serializers";
import { accountIdOf } from "../../domain/bots/ids";
import { post } from "./send";

/**
 * Payments in stars: sendInvoice, answerPreCheckoutQuery, refundStarPayment, and the updates
 * the flow sends the bot (pre_checkout_query, message.successful_payment). Stars only
 * (currency XTR), no payment providers. The person's side (Pay) is POST
 * /api/social/messages/{cid}/{mid}/pay; the flow lives in domain/payments.
 */

function labeledPrices(raw: unknown): LabeledPrice[] {
  if (!Array.isArray(raw)) throw badRequest("prices must be an Array of LabeledPrice");
  if (raw.length === 0) throw badRequest("prices must be non-empty");
  if (raw.length > INVOICE_LIMITS.maxPrices) throw badRequest(`too many prices (maximum ${INVOICE_LIMITS.maxPrices})`);
  return raw.map((p, i) => {
    if (!p || typeof p !== "object") throw badRequest(`prices[${i}] must be a LabeledPrice object`);
    const { label, amount } = p as { label?: unknown; amount?: unknown };
    if (typeof label !== "string" || label.trim() === "") throw badRequest(`prices[${i}].label is empty`);
    if (label.length > INVOICE_LIMITS.label)
      throw badRequest(`prices[${i}].label is too long (maximum ${INVOICE_LIMITS.label})`);
    const n = typeof amount === "string" && /^\d{1,9}$/.test(amount) ? Number(amount) : amount;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1)
      throw badRequest(`prices[${i}].amount must be a positive Integer number of stars`);
    return { label, amount: n };
  });
}

/** The invoice's keyboard: the bot's own (its first button must be Pay) or one Pay button. */
function invoiceMarkup(ctx: BotContext, total: number): Record<string, unknown> {
  const given = parseReplyMarkup(ctx.params.json("reply_markup"), { allowPay: true });
  if (given === undefined || given === null) return { inline_keyboard: [[{ text: `Pay ⭐️${total}`, pay: true }]] };
  const first = inlineButtons(given)[0];
  if (!Array.isArray(given.inline_keyboard) || !first?.pay)
    throw badRequest("REPLY_MARKUP_BUY_EMPTY: the first button of an invoice's inline keyboard must be a Pay button");
  return given;
}

const REFUND_ERRORS: Record<Exclude<RefundOutcome, "refunded">, string> = {
  not_found: "CHARGE_NOT_FOUND",
  wrong_user: "USER_ID_INVALID: the payment was made by another user",
  already_refunded: "CHARGE_ALREADY_REFUNDED",
  hold_over: "CHARGE_NOT_REFUNDABLE: the income hold of this payment is over",
};

export const paymentMethods = {
  async sendInvoice(ctx) {
    const { params } = ctx;
    const title = params.str("title", { required: true, max: INVOICE_LIMITS.title })!;
    const description = params.str("description", { max: INVOICE_LIMITS.description }) ?? "";
    const payload = params.str("payload", { required: true, max: INVOICE_LIMITS.payload })!;
    const currency = params.str("currency") ?? "XTR";
    if (currency !== "XTR") throw badRequest("CURRENCY_INVALID: only XTR (stars) is accepted");
    if (params.has("provider_token"))
      throw badRequest("PAYMENT_PROVIDER_INVALID: payments are in stars only, without providers");
    const startParameter = params.str("start_parameter", { max: 64 }) ?? null;
    const prices = labeledPrices(params.json("prices", { required: true }));
    const total = invoiceTotal(prices);
    if (total > INVOICE_LIMITS.maxTotal)
      throw badRequest(`CURRENCY_TOTAL_AMOUNT_INVALID: the total must be 1 to ${INVOICE_LIMITS.maxTotal} stars`);
    const replyMarkup = invoiceMarkup(ctx, total);
    const view = await resolveChat(ctx);

    const draft = { title, description, payload, startParameter, prices };
    // the invoice message and its invoice row commit together: no message without its invoice
    const sent = await post(
      ctx,
      view,
      { content: "", invoice: invoiceView(draft, "unpaid"), replyMarkup },
      {},
      async (scope, row) => {
        await createInvoice(
          ctx.app,
          {
            ...draft,
            messageId: row.id,
            conversationId: view.conversation.id,
            botId: ctx.bot.id,
            botUserId: ctx.me.id,
          },
          scope,
        );
      },
    );
    return {
      ...sent,
      invoice: { title, description, start_parameter: startParameter ?? "", currency: "XTR", total_amount: total },
    };
  },

  async answerPreCheckoutQuery({ app, bot, params }) {
    const id = params.str("pre_checkout_query_id", { required: true, max: 128 })!;
    const ok = params.bool("ok");
    if (ok === undefined) throw badRequest("ok is empty");
    const errorMessage = params.str("error_message", { max: 255 }) ?? null;
    if (!ok && (errorMessage === null || errorMessage.trim() === ""))
      throw badRequest("error_message is empty: it is required when ok is false");
    if (!(await answerQuery(app, bot.id, id, { ok, errorMessage: ok ? null : errorMessage }))) {
      throw badRequest("query is too old and response timeout expired or query ID is invalid");
    }
    return true;
  },

  async refundStarPayment({ app, bot, params }) {
    const userId = accountIdOf(params.int("user_id", { required: true })!);
    const chargeId = params.str("telegram_payment_charge_id", { required: true, max: 128 })!;
    const outcome = await refundPayment(app, { botId: bot.id, userId, chargeId });
    if (outcome !== "refunded") throw badRequest(REFUND_ERRORS[outcome]);
    return true;
  },
} satisfies MethodTable;

/** A person pressed Pay: pre_checkout_query to the bot, or the query is cancelled when the bot cannot get it. */
async function sendPreCheckoutQuery(
  app: App,
  p: { queryId: string; invoiceId: number; payerId: number },
): Promise<void> {
  let queued: number | null = null;
  try {
    const invoice = await findInvoiceById(app.db, p.invoiceId);
    if (!invoice) return;
    const [found, payer] = await Promise.all([
      findBotByUserId(app.db, invoice.bot_user_id),
      findUserById(app.db, p.payerId),
    ]);
    if (!found || !payer) return;
    queued = await enqueueUpdate(app, found.bot, "pre_checkout_query", {
      id: p.queryId,
      from: serializeUser(payer),
      currency: "XTR",
      total_amount: invoice.total_amount,
      invoice_payload: invoice.payload,
    });
  } finally {
    // not queued (e.g. the bot's allowed_updates leave pre_checkout_query out): nobody will answer
    if (queued === null) await cancelQuery(app, p.queryId);
  }
}

/** A payment was charged: the bot gets its service message as a message with successful_payment. */
async function sendSuccessfulPayment(app: App, p: { paymentId: number; serviceMessageId: number }): Promise<void> {
  const payment = await findPaymentById(app.db, p.paymentId);
  if (!payment) return;
  const [found, conversation, row] = await Promise.all([
    findBotByUserId(app.db, payment.bot_user_id),
    findConversationById(app.db, payment.conversation_id),
    findMessageById(app.db, p.serviceMessageId),
  ]);
  if (!found || !conversation || !row) return;
  // the compatible API's service message: no text, just the payment
  const {
    text: _text,
    entities: _entities,
    ...message
  } = await serializeMessage(app.db, await chatViewFor(app.db, conversation, found.user.id), row);
  await enqueueUpdate(app, found.bot, "message", {
    ...message,
    successful_payment: {
      currency: "XTR",
      total_amount: payment.amount,
      invoice_payload: payment.payload,
      telegram_payment_charge_id: payment.charge_id,
      provider_payment_charge_id: payment.charge_id,
    },
  });
}

/** The Bot API side of the payment flow. Registered once per App (wiring.ts). */
export function installPaymentUpdateHooks(app: App): void {
  app.hooks.on("payment:pre-checkout", (p) => sendPreCheckoutQuery(app, p));
  app.hooks.on("payment:succeeded", (p) => sendSuccessfulPayment(app, p));
}
