import type { App } from "../../app";
import type { SystemMessage } from "../../locales/system-messages";
import { systemMessageIn, textFor } from "../users/language";
import { inTransaction, type Scope } from "../../db/transaction";
import { AppError, fieldError, forbidden } from "../../lib/errors";
import { newCuid, randomToken } from "../../lib/ids";
import { findBotByUserId } from "../bots/service";
import { getMember, isActive, requireMembershipByCuid, requireVisibleMessage, type Membership } from "../chats/access";
import { storeMessage } from "../chats/messages";
import type { MessageRow } from "../chats/table";
import { insufficientBalance, lockWallets, postEntry, publishBalances, walletBalance } from "../stars/ledger";
import type { UserRow } from "../users/table";
import { claimInvoice, openQuery, releaseInvoice } from "./checkout";
import { findInvoiceByMessage, showInvoiceStatus } from "./invoices";
import type { StarInvoiceRow, StarPaymentRow } from "./table";

export type PayResult =
  { status: "paid"; balance: number } | { status: "declined"; errorMessage: string } | { status: "timeout" };

export const invoiceAlreadyPaid = () => new AppError(409, "INVOICE_ALREADY_PAID", "This invoice has already been paid");
export const paymentInProgress = () =>
  new AppError(409, "PAYMENT_IN_PROGRESS", "A payment of this invoice is already in progress");
const botUnavailable = () => forbidden("This bot cannot take payments now");

/** A new charge id: telegram_payment_charge_id and provider_payment_charge_id of the payment. */
const newChargeId = () => `stx${randomToken(24)}`;

/**
 * Charges the payer and credits the bot's held income, in SCOPE (the caller's transaction):
 * the invoice flips unpaid → paid (guarded, so it is paid at most once even across
 * processes), the payer's debit is guarded by the balance, and the payment row starts its
 * hold. The payer sees the new balance once SCOPE has committed.
 */
export async function chargeInvoice(
  scope: Scope,
  app: App,
  invoice: StarInvoiceRow,
  payerId: number,
): Promise<{ payment: StarPaymentRow; balance: number }> {
  const now = app.clock.now();
  const chargeId = newChargeId();
  const trx = scope.db;
  const flipped = await trx
    .updateTable("star_invoices")
    .set({ status: "paid", paid_at: now })
    .where("id", "=", invoice.id)
    .where("status", "=", "unpaid")
    .executeTakeFirst();
  if (Number(flipped.numUpdatedRows) !== 1) throw invoiceAlreadyPaid();
  const common = { kind: "payment" as const, reference: chargeId, note: invoice.title, now };
  await lockWallets(
    trx,
    [
      { userId: payerId, account: "balance" },
      { userId: invoice.bot_user_id, account: "held" },
    ],
    now,
  );
  const balance = await postEntry(trx, {
    ...common,
    userId: payerId,
    account: "balance",
    amount: -invoice.total_amount,
    counterpartyId: invoice.bot_user_id,
  });
  await postEntry(trx, {
    ...common,
    userId: invoice.bot_user_id,
    account: "held",
    amount: invoice.total_amount,
    counterpartyId: payerId,
  });
  const payment = await trx
    .insertInto("star_payments")
    .values({
      cuid: newCuid(),
      charge_id: chargeId,
      invoice_id: invoice.id,
      bot_id: invoice.bot_id,
      bot_user_id: invoice.bot_user_id,
      payer_id: payerId,
      conversation_id: invoice.conversation_id,
      amount: invoice.total_amount,
      payload: invoice.payload,
      status: "paid",
      hold_until: now + app.config["payments.holdSeconds"] * 1000,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  scope.afterCommit(() => publishBalances(app, [payerId]));
  return { payment, balance };
}

/** The invoice message a person acts on, with its chat; NOT_FOUND / VALIDATION_ERROR otherwise. */
async function invoiceFor(app: App, payer: UserRow, conversationCuid: string, messageRef: string) {
  const membership = await requireMembershipByCuid(app.db, conversationCuid, payer.id);
  const message = await requireVisibleMessage(app.db, membership.conversation.id, messageRef, payer.id);
  const invoice = await findInvoiceByMessage(app.db, message.id);
  if (!invoice) throw fieldError("messageId", "is not an invoice");
  return { membership, conversation: membership.conversation, message, invoice };
}

/**
 * The payer's balance checked (INSUFFICIENT_BALANCE, and nothing reaches the bot), then
 * pre_checkout_query to the bot and a wait of up to WAITMS for its answer: undefined when the
 * bot accepted, else the Pay's result (declined, or timeout).
 */
export async function askBot(
  app: App,
  botId: number,
  payerId: number,
  terms: Pick<StarInvoiceRow, "bot_user_id" | "total_amount" | "payload">,
  waitMs: number,
): Promise<Exclude<PayResult, { status: "paid" }> | undefined> {
  const balance = await walletBalance(app.db, payerId, "balance");
  if (balance < terms.total_amount) throw insufficientBalance(balance, terms.total_amount);
  const query = await openQuery(app, botId, waitMs);
  // the Bot API side queues pre_checkout_query, or cancels the query when the bot cannot get it
  await app.hooks.emit("payment:pre-checkout", {
    queryId: query.id,
    botUserId: terms.bot_user_id,
    totalAmount: terms.total_amount,
    payload: terms.payload,
    payerId,
  });
  const answer = await query.answer;
  if (answer === null) return { status: "timeout" };
  if (!answer.ok) return { status: "declined", errorMessage: answer.errorMessage ?? "" };
  return undefined;
}

/**
 * A person presses Pay. Checks the invoice is unpaid and the balance suffices (otherwise an
 * error and nothing reaches the bot), sends pre_checkout_query and waits for the bot's
 * answer up to payments.preCheckoutTimeoutSeconds. ok → charged, a service message in the
 * chat, successful_payment to the bot; not ok → declined with the bot's message; no answer →
 * timeout, nothing charged. Presses of one invoice do not overlap.
 */
export async function payInvoice(
  app: App,
  payer: UserRow,
  conversationCuid: string,
  messageRef: string,
  opts: { timeoutMs?: number } = {},
): Promise<PayResult> {
  if (payer.is_bot) throw forbidden("Bots cannot pay invoices");
  const { membership, conversation, message, invoice } = await invoiceFor(app, payer, conversationCuid, messageRef);
  if (invoice.status !== "unpaid") throw invoiceAlreadyPaid();
  const waitMs = opts.timeoutMs ?? app.config["payments.preCheckoutTimeoutSeconds"] * 1000;
  const claim = await claimInvoice(app, `invoice:${invoice.id}`, waitMs);
  if (claim === null) throw paymentInProgress();
  try {
    const found = await findBotByUserId(app.db, invoice.bot_user_id);
    if (!found || found.bot.disabled_at !== null || found.bot.blocked_at !== null) throw botUnavailable();
    const { bot, user: botUser } = found;
    if (!isActive(await getMember(app.db, conversation.id, botUser.id))) throw botUnavailable();
    const current = await app.db
      .selectFrom("star_invoices")
      .select("status")
      .where("id", "=", invoice.id)
      .executeTakeFirstOrThrow();
    if (current.status !== "unpaid") throw invoiceAlreadyPaid();
    const refused = await askBot(app, bot.id, payer.id, invoice, waitMs);
    if (refused) return refused;

    // the charge, the invoice showing paid and the service message commit together
    const charged = await inTransaction(app.storage, async (scope) => {
      const charged = await chargeInvoice(scope, app, invoice, payer.id);
      await recordPayment(scope, app, {
        membership,
        invoiceMessage: message,
        invoice,
        payment: charged.payment,
        payer,
        botUser,
      });
      return charged;
    });
    return { status: "paid", balance: charged.balance };
  } finally {
    await releaseInvoice(app, `invoice:${invoice.id}`, claim);
  }
}

/**
 * What goes with a charge, in its SCOPE: the invoice shows paid and a service message is
 * posted; once committed, the bot gets successful_payment.
 */
export async function recordPayment(
  scope: Scope,
  app: App,
  p: {
    membership: Membership;
    invoiceMessage: MessageRow;
    invoice: StarInvoiceRow;
    payment: StarPaymentRow;
    payer: UserRow;
    botUser: UserRow;
  },
): Promise<void> {
  await showInvoiceStatus(app, p.invoice, "paid", scope);
  const system: SystemMessage = {
    action: "payment",
    payer: p.payer.display_name,
    bot: p.botUser.display_name,
    title: p.invoice.title,
    invoiceMessageId: p.invoiceMessage.seq,
    totalAmount: p.payment.amount,
    currency: "XTR",
    chargeId: p.payment.charge_id,
  };
  const service = await storeMessage(scope, app, p.membership, {
    kind: "system",
    content: systemMessageIn(await textFor(null), system, ""),
    system,
  });
  scope.afterCommit(() =>
    app.hooks.emit("payment:succeeded", { paymentId: p.payment.id, serviceMessageId: service.id }),
  );
}
