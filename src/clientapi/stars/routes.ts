import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { requireOwnedBot } from "../../domain/bots/service";
import { botIncome, withdrawIncome } from "../../domain/payments/income";
import { giftStars, listTransactions, MAX_GIFT, MAX_NOTE, starBalance, type TransactionRow } from "../../domain/stars/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { toIso } from "../../lib/clock";
import { parseLimit } from "../../lib/paging";
import { paymentRoutes } from "../payments/routes";

const GiftBody = t.Object({
  username: t.String({ minLength: 1, maxLength: 64 }),
  amount: t.Integer({ minimum: 1, maximum: MAX_GIFT }),
  note: t.Optional(t.String({ maxLength: MAX_NOTE })),
});
const WithdrawBody = t.Object({ amount: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000_000_000 })) });
const ListQuery = t.Object({ cursor: t.Optional(t.String()), limit: t.Optional(t.String()) });

/** One balance change as the person's history shows it. */
function serializeTransaction(r: TransactionRow) {
  return {
    id: r.cuid,
    kind: r.kind,
    amount: r.amount,
    balanceAfter: r.balance_after,
    reference: r.reference,
    note: r.note,
    counterparty: r.counterpartyCuid ? { id: r.counterpartyCuid, username: r.counterpartyUsername, displayName: r.counterpartyName, isBot: r.counterpartyIsBot === 1 } : null,
    createdAt: toIso(r.created_at),
  };
}

type Income = Awaited<ReturnType<typeof botIncome>>;
const serializeIncome = (income: Income) => ({
  held: income.held,
  withdrawable: income.withdrawable,
  nextReleaseAt: income.nextReleaseAt === null ? null : toIso(income.nextReleaseAt),
  recentPayments: income.recentPayments.map((p) => ({
    id: p.cuid,
    chargeId: p.charge_id,
    amount: p.amount,
    status: p.status,
    payer: { username: p.payerUsername },
    holdUntil: toIso(p.hold_until),
    released: p.released_at !== null,
    createdAt: toIso(p.created_at),
  })),
});

/**
 * Stars under /api:
 *   GET  /stars/balance                     {balance}
 *   GET  /stars/transactions                {transactions, pageInfo} (?cursor, ?limit)
 *   POST /stars/gift                        {username, amount, note?} → {balance, gift}
 *   GET  /bots/{username}/income            owner: {held, withdrawable, nextReleaseAt, holdSeconds, recentPayments}
 *   POST /bots/{username}/income/withdraw   owner: {amount?} → {withdrawn, balance, held, withdrawable, ...}
 * and the Pay endpoint (clientapi/payments).
 */
export function starsRoutes(app: App) {
  return new Elysia({ name: "client-stars" })
    .use(requestContext(app))
    .use(paymentRoutes(app))
    .get("/stars/balance", async ({ user }) => ok({ balance: await starBalance(app.db, user.id) }), { auth: true })
    .get(
      "/stars/transactions",
      async ({ user, query }) => {
        const page = await listTransactions(app, user.id, query.cursor, parseLimit(query.limit, 20, 100));
        return ok({ transactions: page.items.map(serializeTransaction), pageInfo: { nextCursor: page.nextCursor } });
      },
      { auth: true, query: ListQuery },
    )
    .post(
      "/stars/gift",
      async ({ user, body }) => {
        const gift = await giftStars(app, { senderId: user.id, recipientUsername: body.username, amount: body.amount, note: body.note });
        return ok({ balance: gift.balance, gift: { id: gift.giftId, amount: body.amount, note: gift.note, to: { username: gift.recipient.username } } });
      },
      { auth: true, body: GiftBody },
    )
    .get(
      "/bots/:username/income",
      async ({ user, params }) => {
        const { user: botUser } = await requireOwnedBot(app.db, user.id, params.username);
        return ok({ ...serializeIncome(await botIncome(app, botUser.id)), holdSeconds: app.config["payments.holdSeconds"] });
      },
      { auth: true },
    )
    .post(
      "/bots/:username/income/withdraw",
      async ({ user, params, body }) => {
        const { user: botUser } = await requireOwnedBot(app.db, user.id, params.username);
        const out = await withdrawIncome(app, { botUserId: botUser.id, ownerId: user.id, amount: body?.amount });
        return ok({ withdrawn: out.withdrawn, balance: out.balance, ...serializeIncome(out) });
      },
      { auth: true, body: t.Optional(WithdrawBody) },
    );
}
