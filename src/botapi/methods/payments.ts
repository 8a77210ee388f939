import type { App } from "../../app";
import type { DomainHookPayloads } from "../../domain/hooks";
import { findBotByUserId } from "../../domain/bots/service";
import { enqueueUpdate } from "../../domain/bots/updates";
import { findConversationById, findMessageById } from "../../domain/chats/access";
import { answerQuery, cancelQuery } from "../../domain/payments/checkout";
import { refundPayment, type RefundOutcome } from "../../domain/payments/income";
import {
  buildInvoiceDraft,
  createInvoice,
  findPaymentById,
  INVOICE_LIMITS,
  invoiceTotal,
  invoiceView,
  type InvoiceDraft,
} from "../../domain/payments/invoices";
import { createInvoiceLink, invoiceLinkPath } from "../../domain/payments/links";
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
 * Payments in stars: sendInvoice, createInvoiceLink, answerPreCheckoutQuery, refundStarPayment, and the updates
 * the flow sends the bot (pre_checkout_query, message.successful_payment). Stars only
 * (currency XTR), no payment providers. The person's side (Pay) is POST
 * /api/social/messages/{cid}/{mid}/pay, or for a link POST /api/social/invoice-links/{slug}/pay;
 * the flow lives in domain/payments.
 */

/** The invoice parameters sendInvoice and createInvoiceLink share, checked by the domain's rules. */
function invoiceDraft({ params }: BotContext): InvoiceDraft {
  return buildInvoiceDraft({
    title: params.str("title", { required: true, max: INVOICE_LIMITS.title })!,
    description: params.str("description", { max: INVOICE_LIMITS.description }) ?? "",
    payload: params.str("payload", { required: true, max: INVOICE_LIMITS.payload })!,
    currency: params.str("currency") ?? "XTR",
    hasProviderToken: params.has("provider_token"),
    startParameter: params.str("start_parameter", { max: 64 }) ?? null,
    prices: params.json("prices", { required: true }),
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
    const draft = invoiceDraft(ctx);
    const { title, description, startParameter } = draft;
    const total = invoiceTotal(draft.prices);
    const replyMarkup = invoiceMarkup(ctx, total);
    const view = await resolveChat(ctx);

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

  async createInvoiceLink(ctx) {
    const link = await createInvoiceLink(ctx.app, { ...invoiceDraft(ctx), botId: ctx.bot.id, botUserId: ctx.me.id });
    return new URL(invoiceLinkPath(link.slug), ctx.app.config.baseUrl).href;
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
async function sendPreCheckoutQuery(app: App, p: DomainHookPayloads["payment:pre-checkout"]): Promise<void> {
  let queued: number | null = null;
  try {
    const [found, payer] = await Promise.all([findBotByUserId(app.db, p.botUserId), findUserById(app.db, p.payerId)]);
    if (!found || !payer) return;
    queued = await enqueueUpdate(app, found.bot, "pre_checkout_query", {
      id: p.queryId,
      from: serializeUser(payer),
      currency: "XTR",
      total_amount: p.totalAmount,
      invoice_payload: p.payload,
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
