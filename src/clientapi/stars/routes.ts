import { doc, NullableString } from "../docs";
import { Page, StarTransaction } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  giftStars,
  listTransactions,
  MAX_GIFT,
  MAX_NOTE,
  starBalance,
  type TransactionRow,
} from "../../domain/stars/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { toIso } from "../../lib/clock";
import { parseLimit } from "../../lib/paging";
import { PageQuery } from "../input";

const GiftBody = t.Object({
  username: t.String({ minLength: 1, maxLength: 64 }),
  amount: t.Integer({ minimum: 1, maximum: MAX_GIFT }),
  note: t.Optional(t.String({ maxLength: MAX_NOTE })),
});

/** One balance change as the person's history shows it. */
function serializeTransaction(r: TransactionRow): typeof StarTransaction.static {
  return {
    id: r.cuid,
    kind: r.kind,
    amount: r.amount,
    balanceAfter: r.balance_after,
    reference: r.reference,
    note: r.note,
    counterparty: r.counterpartyCuid
      ? {
          id: r.counterpartyCuid,
          username: r.counterpartyUsername,
          displayName: r.counterpartyName,
          isBot: r.counterpartyIsBot === 1,
        }
      : null,
    createdAt: toIso(r.created_at),
  };
}

/**
 * /api/stars:
 *   GET  /balance                     {balance}
 *   GET  /transactions                {transactions, pageInfo} (?cursor, ?limit)
 *   POST /gift                        {username, amount, note?} → {balance, gift}
 */
export function starsRoutes(app: App) {
  return new Elysia({ name: "client-stars" })
    .use(requestContext(app))
    .get("/balance", async ({ user }) => ok({ balance: await starBalance(app.db, user.id) }), {
      auth: true,
      detail: doc("My star balance", { data: t.Object({ balance: t.Integer() }) }),
    })
    .get(
      "/transactions",
      async ({ user, query }) => {
        const page = await listTransactions(app, user.id, query.cursor, parseLimit(query.limit, 20, 100));
        return ok({ transactions: page.items.map(serializeTransaction), pageInfo: { nextCursor: page.nextCursor } });
      },
      {
        auth: true,
        query: PageQuery,
        detail: doc("My star transactions, newest first", {
          data: Page("transactions", StarTransaction),
        }),
      },
    )
    .post(
      "/gift",
      async ({ user, body }) => {
        const gift = await giftStars(app, {
          senderId: user.id,
          recipientUsername: body.username,
          amount: body.amount,
          note: body.note,
        });
        return ok({
          balance: gift.balance,
          gift: { id: gift.giftId, amount: body.amount, note: gift.note, to: { username: gift.recipient.username } },
        });
      },
      {
        auth: true,
        body: GiftBody,
        detail: doc("Give stars to a person", {
          data: t.Object({
            balance: t.Integer(),
            gift: t.Object({
              id: t.String(),
              amount: t.Integer(),
              note: NullableString,
              to: t.Object({ username: t.String() }),
            }),
          }),
          errors: ["INSUFFICIENT_BALANCE", "FORBIDDEN"],
        }),
      },
    );
}
