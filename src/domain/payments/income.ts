import type { App } from "../../app";
import type { SystemMessage } from "../../locales/system-messages";
import { systemMessageIn, textFor } from "../users/language";
import { fieldError } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { findConversationById, getMember, isActive } from "../chats/access";
import { sendMessage } from "../chats/messages";
import { lockWallets, postEntry, publishBalances, walletBalance } from "../stars/ledger";
import { findInvoiceById, showInvoiceStatus } from "./invoices";
import { inTransaction } from "../../db/transaction";

/**
 * A bot's income: each payment is held (refundable, not withdrawable) until its hold_until,
 * then released into the withdrawable income, which the bot's owner moves into their balance.
 */

/** Moves every matured payment of the bot from held to withdrawable income (one transaction). */
export async function releaseMatured(app: App, botUserId: number): Promise<void> {
  const now = app.clock.now();
  await inTransaction(app.storage, async ({ db: trx }) => {
    const due = await trx
      .selectFrom("star_payments")
      .select(["id", "amount", "charge_id", "payer_id"])
      .where("bot_user_id", "=", botUserId)
      .where("status", "=", "paid")
      .where("released_at", "is", null)
      .where("hold_until", "<=", now)
      .execute();
    for (const p of due) {
      const done = await trx
        .updateTable("star_payments")
        .set({ released_at: now })
        .where("id", "=", p.id)
        .where("status", "=", "paid")
        .where("released_at", "is", null)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) continue;
      const common = {
        userId: botUserId,
        kind: "hold_release" as const,
        reference: p.charge_id,
        counterpartyId: p.payer_id,
        now,
      };
      await postEntry(trx, { ...common, account: "held", amount: -p.amount });
      await postEntry(trx, { ...common, account: "income", amount: p.amount });
    }
  });
}

/** The bot's income as its owner sees it, after releasing matured payments. */
export async function botIncome(app: App, botUserId: number) {
  await releaseMatured(app, botUserId);
  const [held, withdrawable, next, recent] = await Promise.all([
    walletBalance(app.db, botUserId, "held"),
    walletBalance(app.db, botUserId, "income"),
    app.db
      .selectFrom("star_payments")
      .select((eb) => eb.fn.min<number>("hold_until").as("at"))
      .where("bot_user_id", "=", botUserId)
      .where("status", "=", "paid")
      .where("released_at", "is", null)
      .executeTakeFirst(),
    app.db
      .selectFrom("star_payments as p")
      .innerJoin("users as u", "u.id", "p.payer_id")
      .select([
        "p.cuid",
        "p.charge_id",
        "p.amount",
        "p.status",
        "p.hold_until",
        "p.released_at",
        "p.created_at",
        "u.username as payerUsername",
      ])
      .where("p.bot_user_id", "=", botUserId)
      .orderBy("p.id", "desc")
      .limit(20)
      .execute(),
  ]);
  return { held, withdrawable, nextReleaseAt: next?.at ?? null, recentPayments: recent };
}

/**
 * Moves AMOUNT (all when absent) of the bot's withdrawable income into the owner's balance,
 * in one transaction. Returns what was moved and the new balances.
 */
export async function withdrawIncome(app: App, input: { botUserId: number; ownerId: number; amount?: number }) {
  await releaseMatured(app, input.botUserId);
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount < 1))
    throw fieldError("amount", "must be a positive integer");
  const amount = input.amount ?? (await walletBalance(app.db, input.botUserId, "income"));
  if (amount < 1) throw fieldError("amount", "there is no withdrawable income yet");
  const reference = newCuid();
  const now = app.clock.now();
  const balance = await inTransaction(app.storage, async ({ db: trx }) => {
    await postEntry(trx, {
      userId: input.botUserId,
      account: "income",
      amount: -amount,
      kind: "withdrawal",
      reference,
      counterpartyId: input.ownerId,
      now,
    });
    return postEntry(trx, {
      userId: input.ownerId,
      account: "balance",
      amount,
      kind: "withdrawal",
      reference,
      counterpartyId: input.botUserId,
      now,
    });
  });
  await publishBalances(app, [input.ownerId]);
  return { withdrawn: amount, balance, ...(await botIncome(app, input.botUserId)) };
}

export type RefundOutcome = "refunded" | "not_found" | "wrong_user" | "already_refunded" | "hold_over";

/**
 * refundStarPayment: returns a payment's stars from the bot's held income to the payer, once,
 * and only while the hold lasts. One transaction; the payment flips paid → refunded guarded.
 */
export async function refundPayment(
  app: App,
  input: { botId: number; userId: number; chargeId: string },
): Promise<RefundOutcome> {
  const payment = await app.db
    .selectFrom("star_payments")
    .selectAll()
    .where("charge_id", "=", input.chargeId)
    .where("bot_id", "=", input.botId)
    .executeTakeFirst();
  if (!payment) return "not_found";
  if (payment.payer_id !== input.userId) return "wrong_user";
  if (payment.status === "refunded") return "already_refunded";
  const now = app.clock.now();
  if (payment.released_at !== null || now >= payment.hold_until) return "hold_over";
  const outcome = await inTransaction(app.storage, async ({ db: trx }): Promise<RefundOutcome> => {
    const flipped = await trx
      .updateTable("star_payments")
      .set({ status: "refunded", refunded_at: now })
      .where("id", "=", payment.id)
      .where("status", "=", "paid")
      .where("released_at", "is", null)
      .where("hold_until", ">", now)
      .executeTakeFirst();
    if (Number(flipped.numUpdatedRows) !== 1) return "already_refunded";
    const common = { kind: "refund" as const, reference: payment.charge_id, now };
    await lockWallets(
      trx,
      [
        { userId: payment.bot_user_id, account: "held" },
        { userId: payment.payer_id, account: "balance" },
      ],
      now,
    );
    await postEntry(trx, {
      ...common,
      userId: payment.bot_user_id,
      account: "held",
      amount: -payment.amount,
      counterpartyId: payment.payer_id,
    });
    await postEntry(trx, {
      ...common,
      userId: payment.payer_id,
      account: "balance",
      amount: payment.amount,
      counterpartyId: payment.bot_user_id,
    });
    await trx.updateTable("star_invoices").set({ status: "refunded" }).where("id", "=", payment.invoice_id).execute();
    return "refunded";
  });
  if (outcome !== "refunded") return outcome;
  await publishBalances(app, [payment.payer_id]);
  const invoice = (await findInvoiceById(app.db, payment.invoice_id))!;
  await showInvoiceStatus(app, invoice, "refunded");
  const conversation = await findConversationById(app.db, payment.conversation_id);
  if (conversation && isActive(await getMember(app.db, conversation.id, payment.bot_user_id))) {
    const system: SystemMessage = {
      action: "refund",
      title: invoice.title,
      totalAmount: payment.amount,
      currency: "XTR",
      chargeId: payment.charge_id,
    };
    await sendMessage(app, {
      conversationId: conversation.id,
      senderId: payment.bot_user_id,
      kind: "system",
      content: systemMessageIn(await textFor(null), system, ""),
      system,
    });
  }
  return "refunded";
}
