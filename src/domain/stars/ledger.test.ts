import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser } from "../../testing/fixtures";
import { AppError } from "../../lib/errors";
import { createBot } from "../bots/service";
import { onUpdateEnqueued } from "../bots/updates";
import { ensurePrivateChat } from "../chats/conversations";
import { sendMessage } from "../chats/messages";
import type { ConversationRow } from "../chats/table";
import { answerQuery } from "../payments/checkout";
import { refundPayment, withdrawIncome } from "../payments/income";
import { createInvoice, invoiceView } from "../payments/invoices";
import { payInvoice } from "../payments/pay";
import type { UserRow } from "../users/table";
import { auditLedger, postEntry, walletBalance } from "./ledger";
import { giftStars, grantStars } from "./service";

/**
 * Property: after any mix of grants, payments (paid, declined, timed out), refunds, gifts,
 * withdrawals and time passing, some of them concurrent, the stars in all balances plus the
 * bots' held and withdrawable income equal the stars ever granted, every wallet equals its
 * ledger, and no balance is negative.
 */

let server: TestServer;
let people: UserRow[];
let owner: UserRow;
let botId: number;
let botUserId: number;
const chats = new Map<number, ConversationRow>();
let invoiceNo = 0;

/** Expected refusals: the operation did nothing. */
const EXPECTED = new Set(["INSUFFICIENT_BALANCE", "VALIDATION_ERROR", "INVOICE_ALREADY_PAID", "PAYMENT_IN_PROGRESS"]);

beforeAll(async () => {
  server = await startTestServer();
  const app = server.app;
  people = [];
  for (let i = 0; i < 4; i++) people.push(await makeUser(app));
  owner = people[0]!;
  const made = await createBot(app, { ownerId: owner.id, username: "ledger_prop_bot", name: "Ledger" });
  botId = made.bot.id;
  botUserId = made.user.id;
  for (const p of people) chats.set(p.id, (await ensurePrivateChat(app, botUserId, p.id)).conversation);
  // a bot in process: answers pre_checkout_query as the payload says (ok / decline / silent)
  onUpdateEnqueued(app, () => {
    void (async () => {
      const rows = await app.db.selectFrom("bot_updates").selectAll().where("bot_id", "=", botId).where("type", "=", "pre_checkout_query").execute();
      for (const row of rows) {
        await app.db.deleteFrom("bot_updates").where("id", "=", row.id).execute();
        const q = JSON.parse(row.payload) as { id: string; invoice_payload: string };
        if (q.invoice_payload.startsWith("ok")) answerQuery(app, botId, q.id, { ok: true, errorMessage: null });
        else if (q.invoice_payload.startsWith("decline")) answerQuery(app, botId, q.id, { ok: false, errorMessage: "no" });
      }
    })();
  });
});
afterAll(() => server.stop());

/** The bot sends PERSON an invoice of AMOUNT; returns its message id. */
async function sendInvoiceTo(person: UserRow, amount: number, outcome: string): Promise<string> {
  const app = server.app;
  const conversation = chats.get(person.id)!;
  const draft = { title: "Thing", description: "", payload: `${outcome}-${++invoiceNo}`, startParameter: null, prices: [{ label: "thing", amount }] };
  const row = await sendMessage(app, { conversationId: conversation.id, senderId: botUserId, content: "", invoice: invoiceView(draft, "unpaid") });
  await createInvoice(app, { ...draft, messageId: row.id, conversationId: conversation.id, botId, botUserId });
  return String(row.seq);
}

type Op =
  | { t: "grant"; who: number; amount: number }
  | { t: "gift"; from: number; to: number; amount: number }
  | { t: "pay"; who: number; amount: number; outcome: "ok" | "decline" | "silent"; presses: number }
  | { t: "refund"; pick: number }
  | { t: "withdraw"; amount: number | undefined }
  | { t: "advance"; hours: number };

const who = fc.integer({ min: 0, max: 3 });
const simpleOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant("grant" as const), who, amount: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ t: fc.constant("gift" as const), from: who, to: who, amount: fc.integer({ min: 1, max: 60 }) }),
  fc.record({
    t: fc.constant("pay" as const),
    who,
    amount: fc.integer({ min: 1, max: 60 }),
    outcome: fc.constantFrom("ok" as const, "ok" as const, "decline" as const, "silent" as const),
    presses: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({ t: fc.constant("refund" as const), pick: fc.nat() }),
  fc.record({ t: fc.constant("withdraw" as const), amount: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }) }),
  fc.record({ t: fc.constant("advance" as const), hours: fc.integer({ min: 0, max: 80 }) }),
);
/** One step: a single operation, or a few at the same moment. */
const step = fc.oneof(simpleOp.map((op) => [op]), fc.array(simpleOp, { minLength: 2, maxLength: 4 }));

async function expectedRefusal(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError && EXPECTED.has(err.code)) return;
    throw err;
  }
}

async function run(op: Op): Promise<void> {
  const app = server.app;
  switch (op.t) {
    case "grant":
      await grantStars(app, people[op.who]!.id, op.amount);
      return;
    case "gift":
      return expectedRefusal(giftStars(app, { senderId: people[op.from]!.id, recipientUsername: people[op.to]!.username, amount: op.amount }));
    case "pay": {
      const person = people[op.who]!;
      const mid = await sendInvoiceTo(person, op.amount, op.outcome);
      const timeoutMs = op.outcome === "silent" ? 25 : 5_000;
      const presses = Array.from({ length: op.presses }, () => expectedRefusal(payInvoice(app, person, chats.get(person.id)!.cuid, mid, { timeoutMs })));
      await Promise.all(presses);
      return;
    }
    case "refund": {
      const all = await app.db.selectFrom("star_payments").select(["charge_id", "payer_id"]).orderBy("id").execute();
      if (all.length === 0) return;
      const p = all[op.pick % all.length]!;
      const outcome = await refundPayment(app, { botId, userId: p.payer_id, chargeId: p.charge_id });
      expect(["refunded", "already_refunded", "hold_over"]).toContain(outcome);
      return;
    }
    case "withdraw":
      return expectedRefusal(withdrawIncome(app, { botUserId, ownerId: owner.id, amount: op.amount }));
    case "advance":
      server.clock.advance(op.hours * 3600_000);
      return;
  }
}

async function checkBooks(): Promise<void> {
  const app = server.app;
  const audit = await auditLedger(app.db);
  expect(audit.mismatchedWallets).toEqual([]);
  expect(audit.negativeWallets).toEqual([]);
  expect(audit.balances + audit.held + audit.withdrawable).toBe(audit.granted);
  // held income is exactly the paid, unreleased payments
  const unreleased = await app.db
    .selectFrom("star_payments")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), eb.lit(0)).as("n"))
    .where("status", "=", "paid")
    .where("released_at", "is", null)
    .executeTakeFirstOrThrow();
  expect(await walletBalance(app.db, botUserId, "held")).toBe(Number(unreleased.n));
  // each invoice was paid at most once
  const perInvoice = await app.db.selectFrom("star_payments").select(["invoice_id", (eb) => eb.fn.countAll<number>().as("n")]).groupBy("invoice_id").having((eb) => eb.fn.countAll(), ">", 1).execute();
  expect(perInvoice).toEqual([]);
}

describe("the ledger", () => {
  test("a debit beyond the balance changes nothing; the CHECK constraint backs the guard", async () => {
    const app = server.app;
    const p = people[3]!;
    const before = await grantStars(app, p.id, 3, "start");
    await expect(app.db.transaction().execute((trx) => postEntry(trx, { userId: p.id, account: "balance", amount: -(before + 1), kind: "gift", now: app.clock.now() }))).rejects.toMatchObject({
      code: "INSUFFICIENT_BALANCE",
    });
    await expect(app.db.updateTable("star_wallets").set({ balance: -1 }).where("user_id", "=", p.id).execute()).rejects.toThrow(/CHECK constraint failed/);
    expect(await walletBalance(app.db, p.id, "balance")).toBe(before);
    await expect(grantStars(app, botUserId, 5)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(grantStars(app, p.id, 0)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await checkBooks();
  });

  test("money never appears, vanishes or doubles (property, with concurrency)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        for (const ops of steps) {
          await Promise.all(ops.map(run));
          await checkBooks();
        }
      }),
      { numRuns: 30 },
    );
    // the runs did exercise every kind of movement
    const kinds = await server.app.db.selectFrom("star_ledger").select("kind").distinct().execute();
    expect(kinds.map((k) => k.kind).sort()).toEqual(["gift", "grant", "hold_release", "payment", "refund", "withdrawal"]);
  }, 60_000);
});
