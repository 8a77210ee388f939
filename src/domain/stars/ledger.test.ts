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
 * Property: after any mix of grants, payments (paid, declined, timed out, pressed twice),
 * refunds (also twice at once), gifts, withdrawals and time passing, some of them concurrent,
 * the books hold: the stars in all balances plus the bots' held and withdrawable income equal
 * the stars the test granted, every wallet equals its ledger, no balance is negative, and every
 * wallet holds exactly what a model built from the operations' own answers says it should.
 */

let server: TestServer;
let people: UserRow[];
let owner: UserRow;
let botId: number;
let botUserId: number;
const chats = new Map<number, ConversationRow>();
let invoiceNo = 0;

/** What the books must show, built only from what each operation answered. */
const model = { granted: 0, bot: 0, balances: new Map<number, number>() };
function credit(userId: number, amount: number): void {
  model.balances.set(userId, (model.balances.get(userId) ?? 0) + amount);
}

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
      const rows = await app.db
        .selectFrom("bot_updates")
        .selectAll()
        .where("bot_id", "=", botId)
        .where("type", "=", "pre_checkout_query")
        .execute();
      for (const row of rows) {
        await app.db.deleteFrom("bot_updates").where("id", "=", row.id).execute();
        const q = JSON.parse(row.payload) as { id: string; invoice_payload: string };
        if (q.invoice_payload.startsWith("ok")) await answerQuery(app, botId, q.id, { ok: true, errorMessage: null });
        else if (q.invoice_payload.startsWith("decline"))
          await answerQuery(app, botId, q.id, { ok: false, errorMessage: "no" });
      }
    })();
  });
});
afterAll(() => server.stop());

/** The bot sends PERSON an invoice of AMOUNT; returns its message id. */
async function sendInvoiceTo(person: UserRow, amount: number, outcome: string): Promise<string> {
  const app = server.app;
  const conversation = chats.get(person.id)!;
  const draft = {
    title: "Thing",
    description: "",
    payload: `${outcome}-${++invoiceNo}`,
    startParameter: null,
    prices: [{ label: "thing", amount }],
  };
  const row = await sendMessage(app, {
    conversationId: conversation.id,
    senderId: botUserId,
    content: "",
    invoice: invoiceView(draft, "unpaid"),
  });
  await createInvoice(app, { ...draft, messageId: row.id, conversationId: conversation.id, botId, botUserId });
  return String(row.seq);
}

type Op =
  | { t: "grant"; who: number; amount: number }
  | { t: "gift"; from: number; to: number; amount: number }
  | { t: "pay"; who: number; amount: number; outcome: "ok" | "decline" | "silent"; presses: number }
  | { t: "refund"; pick: number; times: number }
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
  fc.record({ t: fc.constant("refund" as const), pick: fc.nat(), times: fc.integer({ min: 1, max: 2 }) }),
  fc.record({
    t: fc.constant("withdraw" as const),
    amount: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  }),
  fc.record({ t: fc.constant("advance" as const), hours: fc.integer({ min: 0, max: 80 }) }),
);
/** One step: a single operation, or a few at the same moment. */
const step = fc.oneof(
  simpleOp.map((op) => [op]),
  fc.array(simpleOp, { minLength: 2, maxLength: 4 }),
);

/** The operation's answer, or null when it was refused in an expected way (and so did nothing). */
async function orRefused<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof AppError && EXPECTED.has(err.code)) return null;
    throw err;
  }
}

/** Runs one operation and records in the model what its answer says moved. */
async function run(op: Op): Promise<void> {
  const app = server.app;
  switch (op.t) {
    case "grant": {
      const person = people[op.who]!;
      await grantStars(app, person.id, op.amount);
      model.granted += op.amount;
      credit(person.id, op.amount);
      return;
    }
    case "gift": {
      const [from, to] = [people[op.from]!, people[op.to]!];
      const gift = await orRefused(
        giftStars(app, { senderId: from.id, recipientUsername: to.username, amount: op.amount }),
      );
      if (gift) {
        credit(from.id, -op.amount);
        credit(to.id, op.amount);
      }
      return;
    }
    case "pay": {
      const person = people[op.who]!;
      const mid = await sendInvoiceTo(person, op.amount, op.outcome);
      const timeoutMs = op.outcome === "silent" ? 25 : 5_000;
      const presses = Array.from({ length: op.presses }, () =>
        orRefused(payInvoice(app, person, chats.get(person.id)!.cuid, mid, { timeoutMs })),
      );
      const results = await Promise.all(presses);
      const paid = results.filter((r) => r?.status === "paid").length;
      expect(paid).toBeLessThanOrEqual(op.outcome === "ok" ? 1 : 0);
      credit(person.id, -paid * op.amount);
      model.bot += paid * op.amount;
      return;
    }
    case "refund": {
      const all = await app.db
        .selectFrom("star_payments")
        .select(["charge_id", "payer_id", "amount"])
        .orderBy("id")
        .execute();
      if (all.length === 0) return;
      const p = all[op.pick % all.length]!;
      const outcomes = await Promise.all(
        Array.from({ length: op.times }, () =>
          refundPayment(app, { botId, userId: p.payer_id, chargeId: p.charge_id }),
        ),
      );
      for (const outcome of outcomes) expect(["refunded", "already_refunded", "hold_over"]).toContain(outcome);
      const refunded = outcomes.filter((o) => o === "refunded").length;
      expect(refunded).toBeLessThanOrEqual(1);
      credit(p.payer_id, refunded * p.amount);
      model.bot -= refunded * p.amount;
      return;
    }
    case "withdraw": {
      const out = await orRefused(withdrawIncome(app, { botUserId, ownerId: owner.id, amount: op.amount }));
      if (out) {
        if (op.amount !== undefined) expect(out.withdrawn).toBe(op.amount);
        credit(owner.id, out.withdrawn);
        model.bot -= out.withdrawn;
      }
      return;
    }
    case "advance":
      server.clock.advance(op.hours * 3600_000);
      return;
  }
}

/** Everything wrong with the books right now (empty when they hold). */
async function booksProblems(): Promise<string[]> {
  const app = server.app;
  const problems: string[] = [];
  const audit = await auditLedger(app.db);
  if (audit.mismatchedWallets.length) problems.push(`wallets differ from their ledger: ${audit.mismatchedWallets}`);
  if (audit.negativeWallets.length) problems.push(`negative wallets: ${audit.negativeWallets}`);
  if (audit.granted !== model.granted)
    problems.push(`ledger grants ${audit.granted}, the test granted ${model.granted}`);
  if (audit.balances + audit.held + audit.withdrawable !== model.granted)
    problems.push(`wallets hold ${audit.balances + audit.held + audit.withdrawable}, granted ${model.granted}`);
  for (const p of people) {
    const actual = await walletBalance(app.db, p.id, "balance");
    const expected = model.balances.get(p.id) ?? 0;
    if (actual !== expected) problems.push(`${p.username}: balance ${actual}, expected ${expected}`);
  }
  const botTotal =
    (await walletBalance(app.db, botUserId, "held")) + (await walletBalance(app.db, botUserId, "income"));
  if (botTotal !== model.bot) problems.push(`bot income ${botTotal}, expected ${model.bot}`);
  // held income is exactly the paid, unreleased payments
  const unreleased = await app.db
    .selectFrom("star_payments")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), eb.lit(0)).as("n"))
    .where("status", "=", "paid")
    .where("released_at", "is", null)
    .executeTakeFirstOrThrow();
  const held = await walletBalance(app.db, botUserId, "held");
  if (held !== Number(unreleased.n)) problems.push(`held ${held}, unreleased payments ${unreleased.n}`);
  // an invoice has at most one payment, and shows that payment's status
  const invoices = await app.db
    .selectFrom("star_invoices as i")
    .leftJoin("star_payments as p", "p.invoice_id", "i.id")
    .select(["i.id", "i.status", "p.status as paymentStatus"])
    .execute();
  const seen = new Set<number>();
  for (const i of invoices) {
    if (seen.has(i.id)) problems.push(`invoice ${i.id} paid more than once`);
    seen.add(i.id);
    if (i.status !== (i.paymentStatus ?? "unpaid"))
      problems.push(`invoice ${i.id} is ${i.status}, its payment ${i.paymentStatus}`);
  }
  return problems;
}

const checkBooks = async () => expect(await booksProblems()).toEqual([]);

describe("the ledger", () => {
  test("a debit beyond the balance changes nothing; the CHECK constraint backs the guard", async () => {
    const app = server.app;
    const p = people[3]!;
    const before = await grantStars(app, p.id, 3, "start");
    model.granted += 3;
    credit(p.id, 3);
    await expect(
      app.db.transaction().execute((trx) =>
        postEntry(trx, {
          userId: p.id,
          account: "balance",
          amount: -(before + 1),
          kind: "gift",
          now: app.clock.now(),
        }),
      ),
    ).rejects.toMatchObject({
      code: "INSUFFICIENT_BALANCE",
    });
    await expect(
      app.db.updateTable("star_wallets").set({ balance: -1 }).where("user_id", "=", p.id).execute(),
    ).rejects.toThrow(/CHECK constraint failed|violates check constraint/);
    expect(await walletBalance(app.db, p.id, "balance")).toBe(before);
    // a movement is all or nothing: a failing second leg undoes the first
    const gift = app.db.transaction().execute(async (trx) => {
      await postEntry(trx, { userId: p.id, account: "balance", amount: -1, kind: "gift", now: app.clock.now() });
      await postEntry(trx, {
        userId: people[2]!.id,
        account: "balance",
        amount: -1_000,
        kind: "gift",
        now: app.clock.now(),
      });
    });
    await expect(gift).rejects.toMatchObject({ code: "INSUFFICIENT_BALANCE" });
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
      { numRuns: 50 },
    );
    // the runs did exercise every kind of movement
    const kinds = await server.app.db.selectFrom("star_ledger").select("kind").distinct().execute();
    expect(kinds.map((k) => k.kind).sort()).toEqual([
      "gift",
      "grant",
      "hold_release",
      "payment",
      "refund",
      "withdrawal",
    ]);
  }, 60_000);

  test("the books check is not vacuous: stars made or lost outside the rules are caught", async () => {
    const app = server.app;
    const p = people[1]!;
    await checkBooks();
    // a wallet changed without a ledger row
    await app.db
      .updateTable("star_wallets")
      .set((eb) => ({ balance: eb("balance", "+", 1) }))
      .where("user_id", "=", p.id)
      .where("account", "=", "balance")
      .execute();
    expect((await booksProblems()).join("\n")).toMatch(/differ from their ledger[\s\S]*balance/);
    await app.db
      .updateTable("star_wallets")
      .set((eb) => ({ balance: eb("balance", "-", 1) }))
      .where("user_id", "=", p.id)
      .where("account", "=", "balance")
      .execute();
    await checkBooks();
    // stars created through the ledger by something that is not a grant (a refund nobody paid)
    await app.db
      .transaction()
      .execute((trx) =>
        postEntry(trx, { userId: p.id, account: "balance", amount: 7, kind: "refund", now: app.clock.now() }),
      );
    expect((await booksProblems()).join("\n")).toMatch(/wallets hold \d+, granted/);
    await app.db
      .transaction()
      .execute((trx) =>
        postEntry(trx, { userId: p.id, account: "balance", amount: -7, kind: "payment", now: app.clock.now() }),
      );
    await checkBooks();
    // stars lost: a debit with no credit on the other side
    await grantStars(app, p.id, 5);
    model.granted += 5;
    credit(p.id, 5);
    await app.db
      .transaction()
      .execute((trx) =>
        postEntry(trx, { userId: p.id, account: "balance", amount: -1, kind: "payment", now: app.clock.now() }),
      );
    expect((await booksProblems()).join("\n")).toMatch(/wallets hold \d+, granted[\s\S]*expected/);
  });
});
