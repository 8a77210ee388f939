import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot, GrammyError, webhookCallback } from "grammy";
import type { SuccessfulPayment } from "grammy/types";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import type { UserRow } from "../../domain/users/table";
import { grantStars } from "../../domain/stars/service";
import { auditLedger } from "../../domain/stars/ledger";
import {
  botCall,
  createBotViaApi,
  history,
  openChat,
  waitFor,
  waitForMessage,
  waitForLongPoll,
} from "../../testing/botapi";
import { botApiUserId } from "../../domain/bots/ids";

/**
 * End to end: a real grammY bot (long polling) sells to a person on the Client API through
 * every row of the spec's payment table.
 */

const HOLD_SECONDS = 259200;
let server: TestServer;
let owner: TestClient;
let ownerUser: UserRow;
let person: TestClient;
let personUser: UserRow;
let bot: Bot;
let token: string;
let running: Promise<void>;
let cid: string;
const queries: Array<{ id: string; payload: string; total: number; fromId: number }> = [];
const payments: SuccessfulPayment[] = [];
const silent: string[] = [];
/** "late-*" invoices: the first pre_checkout_query is answered after the timeout; what the answer got */
const lateSeen = new Set<string>();
const lateAnswers: GrammyError[] = [];
const paymentChats: number[] = [];

beforeAll(async () => {
  server = await startTestServer({ "payments.preCheckoutTimeoutSeconds": 1, "bot.allowPrivateWebhooks": true });
  ({ client: owner, user: ownerUser } = await signedInClient(server));
  ({ client: person, user: personUser } = await signedInClient(server));
  token = await createBotViaApi(owner, "shop_pay_bot", "Shop");
  bot = new Bot(token, { client: { apiRoot: server.url } });
  bot.on("pre_checkout_query", async (ctx) => {
    const q = ctx.preCheckoutQuery;
    queries.push({ id: q.id, payload: q.invoice_payload, total: q.total_amount, fromId: q.from.id });
    expect(q.currency).toBe("XTR");
    if (q.invoice_payload.startsWith("ok")) {
      await Bun.sleep(100);
      await ctx.answerPreCheckoutQuery(true);
    } else if (q.invoice_payload.startsWith("late") && !lateSeen.has(q.invoice_payload)) {
      lateSeen.add(q.invoice_payload);
      await Bun.sleep(1300);
      await ctx.answerPreCheckoutQuery(true).catch((err: GrammyError) => lateAnswers.push(err));
    } else if (q.invoice_payload.startsWith("late")) {
      await ctx.answerPreCheckoutQuery(true);
    } else if (q.invoice_payload.startsWith("decline")) {
      await ctx.answerPreCheckoutQuery(false, { error_message: "Out of stock" });
    } else silent.push(q.id);
  });
  bot.on("message:successful_payment", (ctx) => {
    payments.push(ctx.message.successful_payment);
    paymentChats.push(ctx.chat.id);
  });
  running = bot.start({ timeout: 1, drop_pending_updates: true });
  // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
  await waitForLongPoll(server.app, token);
  cid = await openChat(person, "shop_pay_bot");
  await grantStars(server.app, personUser.id, 100, "welcome");
});

afterAll(async () => {
  await bot.stop();
  await running;
  await server.stop();
});

const prices = (...amounts: number[]) => amounts.map((amount, i) => ({ label: `item ${i + 1}`, amount }));
const invoice = (payload: string, amounts: number[], title = "Coffee") =>
  bot.api.sendInvoice(personUser.id, title, "Hot coffee", payload, "XTR", prices(...amounts));
const pay = (messageId: string) => person.post(`/api/social/messages/${cid}/${messageId}/pay`);
const balance = async () => (await person.get("/api/stars/balance")).body.data.balance as number;
/** The invoice message as the person's app shows it. */
const shown = (messageId: number) => waitForMessage(person, cid, (m) => m.messageId === messageId);

async function expectBooksBalanced() {
  const audit = await auditLedger(server.app.db);
  expect(audit.mismatchedWallets).toEqual([]);
  expect(audit.negativeWallets).toEqual([]);
  expect(audit.inWallets).toBe(audit.granted);
}

/** A raw Bot API answer as grammY would report it: a failure becomes a GrammyError. */
function asGrammy(res: { body: { ok: boolean; error_code?: number; description?: string } }) {
  if (res.body.ok) return res.body;
  throw new GrammyError("raw call failed", res.body as never, "sendInvoice", {});
}

async function botError(p: Promise<unknown>): Promise<GrammyError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof GrammyError) return err;
    throw err;
  }
  throw new Error("expected the Bot API call to fail");
}

describe("payments in stars with grammY", () => {
  test("invalid invoices are refused with Telegram-style 400s", async () => {
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => bot.api.sendInvoice(personUser.id, "T", "d", "p", "USD", prices(5)), /CURRENCY_INVALID/],
      [() => bot.api.sendInvoice(personUser.id, "", "d", "p", "XTR", prices(5)), /title is empty/],
      [
        () => bot.api.sendInvoice(personUser.id, "x".repeat(65), "d", "p", "XTR", prices(5)),
        /title is too long \(maximum 64\)/,
      ],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d".repeat(256), "p", "XTR", prices(5)),
        /description is too long \(maximum 255\)/,
      ],
      [() => bot.api.sendInvoice(personUser.id, "T", "d", "", "XTR", prices(5)), /payload is empty/],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d", "p".repeat(129), "XTR", prices(5)),
        /payload is too long \(maximum 128\)/,
      ],
      [() => bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", []), /prices must be non-empty/],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", prices(0)),
        /prices\[0\]\.amount must be a positive Integer/,
      ],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", prices(1.5)),
        /prices\[0\]\.amount must be a positive Integer/,
      ],
      [
        () =>
          botCall(server.url, token, "sendInvoice", { chat_id: personUser.id, title: "T", payload: "p" }).then(
            asGrammy,
          ),
        /prices is empty/,
      ],
      [
        () =>
          botCall(server.url, token, "sendInvoice", {
            chat_id: personUser.id,
            title: "T",
            payload: "p",
            prices: "nope",
          }).then(asGrammy),
        /can't parse prices JSON object/,
      ],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", prices(60000, 40001)),
        /CURRENCY_TOTAL_AMOUNT_INVALID/,
      ],
      [
        () => bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", [{ label: "", amount: 3 }]),
        /prices\[0\]\.label is empty/,
      ],
      [
        () =>
          bot.api.sendInvoice(personUser.id, "T", "d", "p", "XTR", prices(5), {
            reply_markup: { inline_keyboard: [[{ text: "Info", callback_data: "i" }]] },
          }),
        /REPLY_MARKUP_BUY_EMPTY/,
      ],
      [() => bot.api.sendInvoice(999999, "T", "d", "p", "XTR", prices(5)), /chat not found/],
    ];
    for (const [call, pattern] of cases) {
      const err = await botError(call());
      expect(err.error_code).toBe(400);
      expect(err.description).toMatch(pattern);
    }
    // providers do not exist: a provider token is refused; a missing currency means XTR
    expect(
      (
        await botCall(server.url, token, "sendInvoice", {
          chat_id: personUser.id,
          title: "T",
          payload: "p",
          provider_token: "123:TEST",
          prices: prices(5),
        })
      ).body,
    ).toMatchObject({
      ok: false,
      error_code: 400,
      description: expect.stringMatching(/PAYMENT_PROVIDER_INVALID/),
    });
    const noCurrency = await botCall(server.url, token, "sendInvoice", {
      chat_id: personUser.id,
      title: "Tea",
      payload: "ok-tea",
      prices: JSON.stringify(prices(2, 3)),
    });
    expect(noCurrency.body.result.invoice).toEqual({
      title: "Tea",
      description: "",
      start_parameter: "",
      currency: "XTR",
      total_amount: 5,
    });
    // the largest total is accepted
    expect(
      (await bot.api.sendInvoice(personUser.id, "Big", "", "ok-big", "XTR", prices(60000, 40000))).invoice
        ?.total_amount,
    ).toBe(100000);
    // a pay button outside an invoice is refused
    const payButton = await botCall(server.url, token, "sendMessage", {
      chat_id: personUser.id,
      text: "x",
      reply_markup: { inline_keyboard: [[{ text: "Pay", pay: true }]] },
    });
    expect(payButton.status).toBe(400);
    expect((await history(person, cid)).filter((m) => m.invoice).length).toBe(2);
  });

  test("paid: charged once, service message, successful_payment to the bot", async () => {
    const events: unknown[] = [];
    const unsubscribe = server.app.events.subscribe(
      personUser.id,
      (e) => e.event === "stars:balance" && events.push(e.data),
    );
    const sent = await invoice("ok-coffee", [30, 12]);
    expect(sent.invoice).toEqual({
      title: "Coffee",
      description: "Hot coffee",
      start_parameter: "",
      currency: "XTR",
      total_amount: 42,
    });
    expect((sent as { reply_markup?: { inline_keyboard: unknown[][] } }).reply_markup?.inline_keyboard[0]?.[0]).toEqual(
      { text: "Pay ⭐️42", pay: true },
    );
    const msg = await shown(sent.message_id);
    expect(msg.invoice).toEqual({
      title: "Coffee",
      description: "Hot coffee",
      currency: "XTR",
      totalAmount: 42,
      prices: prices(30, 12),
      status: "unpaid",
    });
    expect(msg.replyMarkup.inline_keyboard[0][0].pay).toBe(true);

    const res = await pay(msg.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: "paid", balance: 58 });
    expect(await balance()).toBe(58);
    unsubscribe();
    expect(events).toEqual([{ balance: 58 }]);
    expect(queries.at(-1)).toEqual({
      id: expect.any(String),
      payload: "ok-coffee",
      total: 42,
      fromId: botApiUserId(personUser.id),
    });

    const sp = await waitFor(() => payments.find((p) => p.invoice_payload === "ok-coffee"), 5000, "successful_payment");
    expect(sp.currency).toBe("XTR");
    expect(sp.total_amount).toBe(42);
    expect(sp.telegram_payment_charge_id).toMatch(/^stx/);
    expect(sp.provider_payment_charge_id).toBe(sp.telegram_payment_charge_id);

    const after = await history(person, cid);
    const service = after.find((m) => m.system?.action === "payment");
    expect(service).toMatchObject({
      kind: "system",
      system: { totalAmount: 42, currency: "XTR", invoiceMessageId: sent.message_id },
    });
    expect(after.find((m) => m.messageId === sent.message_id).invoice.status).toBe("paid");

    const again = await pay(msg.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("INVOICE_ALREADY_PAID");
    const tx = (await person.get("/api/stars/transactions")).body.data.transactions;
    expect(tx.map((t: any) => [t.kind, t.amount, t.balanceAfter])).toEqual([
      ["payment", -42, 58],
      ["grant", 100, 100],
    ]);
    expect(tx[0]).toMatchObject({
      reference: sp.telegram_payment_charge_id,
      note: "Coffee",
      counterparty: { username: "shop_pay_bot", isBot: true },
    });
    await expectBooksBalanced();
  });

  test("declined: the bot's error message, nothing charged; ok=false needs error_message", async () => {
    const sent = await invoice("decline-1", [10]);
    const msg = await shown(sent.message_id);
    const res = await pay(msg.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: "declined", errorMessage: "Out of stock" });
    expect(await balance()).toBe(58);
    const noMessage = await botCall(server.url, token, "answerPreCheckoutQuery", {
      pre_checkout_query_id: "whatever",
      ok: false,
    });
    expect(noMessage.status).toBe(400);
    expect(noMessage.body.description).toMatch(/error_message is empty/);
    const noOk = await botCall(server.url, token, "answerPreCheckoutQuery", { pre_checkout_query_id: "whatever" });
    expect(noOk.body).toMatchObject({ ok: false, error_code: 400, description: "Bad Request: ok is empty" });
    const unknown = await botError(bot.api.answerPreCheckoutQuery("no-such-query", true));
    expect(unknown.description).toMatch(/query is too old and response timeout expired or query ID is invalid/);
  });

  test("timeout: nothing charged and a late answer is refused", async () => {
    const sent = await invoice("silent-1", [7]);
    const msg = await shown(sent.message_id);
    const t0 = Date.now();
    const res = await pay(msg.id);
    expect(res.body.data).toEqual({ status: "timeout" });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(await balance()).toBe(58);
    const late = await botError(bot.api.answerPreCheckoutQuery(silent.at(-1)!, true));
    expect(late.error_code).toBe(400);
    expect(late.description).toMatch(/query is too old/);
    expect((await history(person, cid)).find((m) => m.messageId === sent.message_id).invoice.status).toBe("unpaid");
  });

  test("a real bot answering too late is refused; pressed again, the invoice is paid", async () => {
    const sent = await invoice("late-1", [7]);
    const msg = await shown(sent.message_id);
    expect((await pay(msg.id)).body.data).toEqual({ status: "timeout" });
    const late = await waitFor(() => lateAnswers[0], 5000, "the bot's late answer");
    expect(late.error_code).toBe(400);
    expect(late.description).toBe("Bad Request: query is too old and response timeout expired or query ID is invalid");
    expect(await balance()).toBe(58);
    expect(payments.some((p) => p.invoice_payload === "late-1")).toBe(false);
    expect((await pay(msg.id)).body.data).toEqual({ status: "paid", balance: 51 });
    const sp = await waitFor(() => payments.find((p) => p.invoice_payload === "late-1"), 5000, "successful_payment");
    expect(queries.filter((q) => q.payload === "late-1").length).toBe(2);
    // given back at once, so the rows below keep their numbers
    expect(await bot.api.refundStarPayment(personUser.id, sp.telegram_payment_charge_id)).toBe(true);
    expect(await balance()).toBe(58);
    await expectBooksBalanced();
  });

  test("a bot that left pre_checkout_query out of allowed_updates cannot answer: timeout at once", async () => {
    const quietToken = await createBotViaApi(owner, "quiet_shop_bot", "Quiet shop");
    expect(
      (await botCall(server.url, quietToken, "getUpdates", { timeout: 0, allowed_updates: ["message"] })).body.ok,
    ).toBe(true);
    const qcid = await openChat(person, "quiet_shop_bot");
    const sent = (
      await botCall(server.url, quietToken, "sendInvoice", {
        chat_id: personUser.id,
        title: "Tea",
        payload: "ok-quiet",
        prices: prices(2),
      })
    ).body.result;
    const msg = await waitForMessage(person, qcid, (m) => m.messageId === sent.message_id);
    const t0 = Date.now();
    const res = await person.post(`/api/social/messages/${qcid}/${msg.id}/pay`);
    expect(res.body.data).toEqual({ status: "timeout" });
    // cancelled without waiting for payments.preCheckoutTimeoutSeconds (1 s here)
    expect(Date.now() - t0).toBeLessThan(800);
    expect(await balance()).toBe(58);
    const queued = await botCall(server.url, quietToken, "getUpdates", { timeout: 0, allowed_updates: [] });
    expect(queued.body.result.filter((u: Record<string, unknown>) => "pre_checkout_query" in u)).toEqual([]);
  });

  test("insufficient balance: a clear error and nothing reaches the bot", async () => {
    const sent = await invoice("ok-expensive", [500]);
    const msg = await shown(sent.message_id);
    const before = queries.length;
    const res = await pay(msg.id);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: "INSUFFICIENT_BALANCE", details: { balance: 58, required: 500 } },
    });
    await Bun.sleep(200);
    expect(queries.length).toBe(before);
    // not an invoice, unknown message, someone else's chat
    const plain = await person.post(`/api/social/messages/${cid}`, { content: "hi" });
    const notInvoice = await pay(plain.body.data.message.id);
    expect(notInvoice.status).toBe(400);
    expect(notInvoice.body.error.details.fieldErrors.messageId).toEqual(["is not an invoice"]);
    expect((await pay("999999")).status).toBe(404);
    expect((await person.post(`/api/social/messages/nosuchchat/${msg.id}/pay`)).status).toBe(404);
    expect((await owner.post(`/api/social/messages/${cid}/${msg.id}/pay`)).status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/social/messages/${cid}/${msg.id}/pay`, { method: "POST" });
    expect(anonymous.status).toBe(403);
  });

  test("double press at the same moment: paid exactly once", async () => {
    const sent = await invoice("ok-double", [10]);
    const msg = await shown(sent.message_id);
    const results = await Promise.all([pay(msg.id), pay(msg.id), pay(msg.id)]);
    const paid = results.filter((r) => r.status === 200);
    expect(paid.length).toBe(1);
    expect(paid[0]!.body.data).toEqual({ status: "paid", balance: 48 });
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(["PAYMENT_IN_PROGRESS", "INVOICE_ALREADY_PAID"]).toContain(r.body.error.code);
    }
    expect(await balance()).toBe(48);
    expect(queries.filter((q) => q.payload === "ok-double").length).toBe(1);
    // the bot hears of the payment by long polling, after the pay answered
    await waitFor(() => payments.find((p) => p.invoice_payload === "ok-double"), 5000, "successful_payment");
    expect(payments.filter((p) => p.invoice_payload === "ok-double").length).toBe(1);
    await expectBooksBalanced();
  });

  test("refund during the hold, once; wrong charge or user refused", async () => {
    const sp = payments.find((p) => p.invoice_payload === "ok-coffee")!;
    const events: unknown[] = [];
    const unsubscribe = server.app.events.subscribe(
      personUser.id,
      (e) => e.event === "stars:balance" && events.push(e.data),
    );
    expect(await bot.api.refundStarPayment(personUser.id, sp.telegram_payment_charge_id)).toBe(true);
    expect(await balance()).toBe(90);
    const twice = await botError(bot.api.refundStarPayment(personUser.id, sp.telegram_payment_charge_id));
    expect(twice.error_code).toBe(400);
    expect(twice.description).toBe("Bad Request: CHARGE_ALREADY_REFUNDED");
    expect((await botError(bot.api.refundStarPayment(personUser.id, "stxnope"))).description).toBe(
      "Bad Request: CHARGE_NOT_FOUND",
    );
    const double = payments.find((p) => p.invoice_payload === "ok-double")!;
    expect(
      (await botError(bot.api.refundStarPayment(personUser.id + 1000, double.telegram_payment_charge_id))).description,
    ).toMatch(/USER_ID_INVALID/);
    const missing = await botCall(server.url, token, "refundStarPayment", { user_id: personUser.id });
    expect(missing.body.description).toBe("Bad Request: telegram_payment_charge_id is empty");
    const noUser = await botCall(server.url, token, "refundStarPayment", {
      telegram_payment_charge_id: sp.telegram_payment_charge_id,
    });
    expect(noUser.body).toMatchObject({ ok: false, error_code: 400, description: "Bad Request: user_id is empty" });
    unsubscribe();
    // only the refund changed the balance: one event, nothing for the refused calls
    expect(events).toEqual([{ balance: 90 }]);
    const after = await history(person, cid);
    expect(
      after.find((m) => m.system?.action === "refund" && m.system.chargeId === sp.telegram_payment_charge_id),
    ).toMatchObject({ kind: "system", system: { totalAmount: 42 } });
    const refunded = after.filter((m) => m.invoice?.title === "Coffee" && m.invoice.totalAmount === 42);
    expect(refunded.map((m) => m.invoice.status)).toEqual(["refunded"]);
    // a refunded invoice stays closed
    const payAgain = await pay(refunded[0].id);
    expect([payAgain.status, payAgain.body.error.code]).toEqual([409, "INVOICE_ALREADY_PAID"]);
    const tx = (await person.get("/api/stars/transactions?limit=1")).body.data;
    expect(tx.transactions[0]).toMatchObject({ kind: "refund", amount: 42, balanceAfter: 90 });
    expect(tx.pageInfo.nextCursor).toEqual(expect.any(String));
    await expectBooksBalanced();
  });

  test("after the hold: refund refused, income withdrawable by the owner", async () => {
    const income = await owner.get("/api/bots/shop_pay_bot/income");
    expect(income.body.data).toMatchObject({
      held: 10,
      withdrawable: 0,
      holdSeconds: HOLD_SECONDS,
      nextReleaseAt: expect.any(String),
    });
    expect((await person.get("/api/bots/shop_pay_bot/income")).status).toBe(404);
    const early = await owner.post("/api/bots/shop_pay_bot/income/withdraw", {});
    expect(early.status).toBe(400);
    expect(early.body.error.details.fieldErrors.amount).toEqual(["there is no withdrawable income yet"]);

    server.clock.advance((HOLD_SECONDS + 1) * 1000);
    const double = payments.find((p) => p.invoice_payload === "ok-double")!;
    const late = await botError(bot.api.refundStarPayment(personUser.id, double.telegram_payment_charge_id));
    expect(late.description).toMatch(/CHARGE_NOT_REFUNDABLE/);
    expect(await balance()).toBe(90);

    const matured = await owner.get("/api/bots/shop_pay_bot/income");
    expect(matured.body.data).toMatchObject({ held: 0, withdrawable: 10, nextReleaseAt: null });
    const tooMuch = await owner.post("/api/bots/shop_pay_bot/income/withdraw", { amount: 11 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.code).toBe("INSUFFICIENT_BALANCE");
    const bad = await owner.post("/api/bots/shop_pay_bot/income/withdraw", { amount: 0 });
    expect(bad.status).toBe(422);
    const ownerEvents: unknown[] = [];
    const unsubscribe = server.app.events.subscribe(
      ownerUser.id,
      (e) => e.event === "stars:balance" && ownerEvents.push(e.data),
    );
    const part = await owner.post("/api/bots/shop_pay_bot/income/withdraw", { amount: 4 });
    expect(part.body.data).toMatchObject({ withdrawn: 4, balance: 4, held: 0, withdrawable: 6 });
    const rest = await owner.post("/api/bots/shop_pay_bot/income/withdraw");
    expect(rest.body.data).toMatchObject({ withdrawn: 6, balance: 10, withdrawable: 0 });
    expect((await owner.get("/api/stars/balance")).body.data.balance).toBe(10);
    unsubscribe();
    expect(ownerEvents).toEqual([{ balance: 4 }, { balance: 10 }]);
    await expectBooksBalanced();
    const audit = await auditLedger(server.app.db);
    expect(audit).toMatchObject({ granted: 100, balances: 100, held: 0, withdrawable: 0 });
  });

  test("a webhook bot answers pre_checkout_query from its webhook handler", async () => {
    const hookToken = await createBotViaApi(owner, "hook_shop_bot", "Hook shop");
    const hookBot = new Bot(hookToken, { client: { apiRoot: server.url } });
    await hookBot.init();
    const got: SuccessfulPayment[] = [];
    hookBot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    hookBot.on("message:successful_payment", (ctx) => {
      got.push(ctx.message.successful_payment);
    });
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: webhookCallback(hookBot, "std/http", { secretToken: "pay_secret" }),
    });
    try {
      await hookBot.api.setWebhook(`http://127.0.0.1:${receiver.port}/hook`, { secret_token: "pay_secret" });
      const hcid = await openChat(person, "hook_shop_bot");
      const sent = await hookBot.api.sendInvoice(personUser.id, "Tea", "", "hook-tea", "XTR", prices(3));
      const msg = await waitForMessage(person, hcid, (m) => m.messageId === sent.message_id);
      const before = await balance();
      const res = await person.post(`/api/social/messages/${hcid}/${msg.id}/pay`);
      expect(res.body.data).toEqual({ status: "paid", balance: before - 3 });
      const sp = await waitFor(() => got[0], 5000, "successful_payment by webhook");
      expect(sp).toMatchObject({ currency: "XTR", total_amount: 3, invoice_payload: "hook-tea" });
      await expectBooksBalanced();
    } finally {
      receiver.stop(true);
    }
  });

  test("in a group: any member pays; the bot's successful_payment names the group", async () => {
    const group = await person.post("/api/social/groups", { title: "Coffee club", members: ["shop_pay_bot"] });
    expect(group.status).toBe(200);
    const gcid = group.body.data.conversationId as string;
    const row = await server.app.db
      .selectFrom("conversations")
      .select("id")
      .where("cuid", "=", gcid)
      .executeTakeFirstOrThrow();
    const sent = await bot.api.sendInvoice(-row.id, "Group coffee", "", "ok-group", "XTR", prices(5));
    expect(sent.chat).toMatchObject({ id: -row.id, type: "group" });
    const msg = await waitForMessage(person, gcid, (m) => m.messageId === sent.message_id);
    const res = await person.post(`/api/social/messages/${gcid}/${msg.id}/pay`);
    expect(res.body.data).toEqual({ status: "paid", balance: 82 });
    await waitFor(() => paymentChats.includes(-row.id), 5000, "successful_payment in the group");
    expect((await owner.get("/api/bots/shop_pay_bot/income")).body.data).toMatchObject({ held: 5, withdrawable: 0 });
    await expectBooksBalanced();
  });
});
