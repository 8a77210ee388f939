import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import type { SuccessfulPayment } from "grammy/types";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import type { UserRow } from "../../domain/users/table";
import { grantStars } from "../../domain/stars/service";
import { auditLedger } from "../../domain/stars/ledger";
import { botCall, createBotViaApi, history, waitFor, waitForLongPoll } from "../../testing/botapi";
import { botApiUserId } from "../../domain/bots/ids";

/**
 * End to end: a real grammY bot makes an invoice link (createInvoiceLink); people who open it
 * pay it over the Client API, and each payment reaches the bot as successful_payment in the
 * private chat of that person and the bot.
 */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let other: TestClient;
let otherUser: UserRow;
let bot: Bot;
let token: string;
let running: Promise<void>;
const queries: Array<{ payload: string; total: number; fromId: number }> = [];
const payments: Array<{ payment: SuccessfulPayment; chatId: number; fromId: number | undefined }> = [];

beforeAll(async () => {
  server = await startTestServer({ "payments.preCheckoutTimeoutSeconds": 2 });
  ({ client: owner } = await signedInClient(server));
  ({ client: person, user: personUser } = await signedInClient(server));
  ({ client: other, user: otherUser } = await signedInClient(server));
  token = await createBotViaApi(owner, "link_shop_bot", "Link shop");
  bot = new Bot(token, { client: { apiRoot: server.url } });
  bot.on("pre_checkout_query", async (ctx) => {
    const q = ctx.preCheckoutQuery;
    queries.push({ payload: q.invoice_payload, total: q.total_amount, fromId: q.from.id });
    if (q.invoice_payload.startsWith("decline")) await ctx.answerPreCheckoutQuery(false, { error_message: "Sold out" });
    else await ctx.answerPreCheckoutQuery(true);
  });
  bot.on("message:successful_payment", (ctx) => {
    payments.push({ payment: ctx.message.successful_payment, chatId: ctx.chat.id, fromId: ctx.from?.id });
  });
  running = bot.start({ timeout: 1, drop_pending_updates: true });
  // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
  await waitForLongPoll(server.app, token);
  await grantStars(server.app, personUser.id, 100, "welcome");
  await grantStars(server.app, otherUser.id, 10, "welcome");
});

afterAll(async () => {
  await bot.stop();
  await running;
  await server.stop();
});

const prices = (...amounts: number[]) => amounts.map((amount, i) => ({ label: `item ${i + 1}`, amount }));
const slugOf = (link: string) => new URL(link).pathname.split("/").pop()!;
const balance = async (client: TestClient) => (await client.get("/api/stars/balance")).body.data.balance as number;

describe("createInvoiceLink", () => {
  test("a link is paid by several people, each payment its own successful_payment", async () => {
    const link = await bot.api.createInvoiceLink("Poster", "A signed poster", "poster-42", "", "XTR", prices(5, 2));
    expect(link.startsWith(`${server.url}/pay/`)).toBe(true);
    const slug = slugOf(link);
    expect(slug.length).toBeGreaterThanOrEqual(32);

    const opened = await person.get(`/api/social/invoice-links/${slug}`);
    expect(opened.status).toBe(200);
    expect(opened.body.data.invoice).toEqual({
      title: "Poster",
      description: "A signed poster",
      currency: "XTR",
      totalAmount: 7,
      prices: prices(5, 2),
    });
    expect(opened.body.data.bot).toMatchObject({ username: "link_shop_bot", isBot: true });
    expect(JSON.stringify(opened.body)).not.toContain("poster-42");

    const paid = await person.post(`/api/social/invoice-links/${slug}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: "paid", balance: 93 });
    expect(await balance(person)).toBe(93);
    await waitFor(() => payments.length === 1, 5000, "successful_payment");
    expect(queries[0]).toEqual({ payload: "poster-42", total: 7, fromId: botApiUserId(personUser.id) });
    expect(payments[0]!.payment).toMatchObject({ currency: "XTR", total_amount: 7, invoice_payload: "poster-42" });
    // the private chat of the person and the bot, as the compatible API delivers link payments
    expect(payments[0]!.chatId).toBe(botApiUserId(personUser.id));
    expect(payments[0]!.fromId).toBe(botApiUserId(personUser.id));

    // the person's chat with the bot shows the paid invoice and its receipt
    const cid = paid.body.data.conversationId as string;
    const messages = await history(person, cid);
    expect(messages.some((m) => m.invoice?.status === "paid" && m.invoice.totalAmount === 7)).toBe(true);

    // the same link again, by the same person and by another
    expect((await person.post(`/api/social/invoice-links/${slug}/pay`)).body.data.status).toBe("paid");
    expect((await other.post(`/api/social/invoice-links/${slug}/pay`)).body.data).toMatchObject({
      status: "paid",
      balance: 3,
    });
    await waitFor(() => payments.length === 3, 5000, "three successful_payments");
    expect(payments.map((p) => p.payment.invoice_payload)).toEqual(["poster-42", "poster-42", "poster-42"]);
    expect(new Set(payments.map((p) => p.payment.telegram_payment_charge_id)).size).toBe(3);
    expect(payments[2]!.chatId).toBe(botApiUserId(otherUser.id));

    // too few stars: refused before the bot hears of it
    const poor = await other.post(`/api/social/invoice-links/${slug}/pay`);
    expect(poor.status).toBe(400);
    expect(poor.body.error.code).toBe("INSUFFICIENT_BALANCE");
    expect(queries.length).toBe(3);

    // a link's payment refunds as any other
    expect(
      await bot.api.refundStarPayment(botApiUserId(otherUser.id), payments[2]!.payment.telegram_payment_charge_id),
    ).toBe(true);
    expect(await balance(other)).toBe(10);

    const audit = await auditLedger(server.app.db);
    expect(audit.mismatchedWallets).toEqual([]);
    expect(audit.negativeWallets).toEqual([]);
  });

  test("a declined payment charges nothing; an unknown link is not found", async () => {
    const link = await bot.api.createInvoiceLink("Mug", "", "decline-mug", "", "XTR", prices(3));
    const before = await balance(person);
    const declined = await person.post(`/api/social/invoice-links/${slugOf(link)}/pay`);
    expect(declined.body.data).toMatchObject({ status: "declined", errorMessage: "Sold out" });
    expect(await balance(person)).toBe(before);

    expect((await person.get("/api/social/invoice-links/not-a-link")).status).toBe(404);
    expect((await person.post("/api/social/invoice-links/not-a-link/pay")).status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/social/invoice-links/${slugOf(link)}`);
    expect(anonymous.status).toBe(401);
  });

  test("invalid invoices are refused with the same words as sendInvoice", async () => {
    const cases: Array<Record<string, unknown>> = [
      { title: "T", description: "d", payload: "p", currency: "USD", prices: prices(5) },
      { title: "", description: "d", payload: "p", currency: "XTR", prices: prices(5) },
      { title: "x".repeat(65), description: "d", payload: "p", currency: "XTR", prices: prices(5) },
      { title: "T", description: "d", payload: "", currency: "XTR", prices: prices(5) },
      { title: "T", description: "d", payload: "p", currency: "XTR", prices: [] },
      { title: "T", description: "d", payload: "p", currency: "XTR", prices: prices(0) },
      { title: "T", description: "d", payload: "p", currency: "XTR", prices: prices(60000, 40001) },
      { title: "T", description: "d", payload: "p", currency: "XTR", prices: prices(5), provider_token: "x" },
      { title: "T", description: "d", payload: "p", currency: "XTR", prices: "not json" },
    ];
    for (const params of cases) {
      const viaLink = await botCall(server.url, token, "createInvoiceLink", params);
      const viaSend = await botCall(server.url, token, "sendInvoice", { ...params, chat_id: personUser.id });
      expect(viaLink.body.ok).toBe(false);
      expect(viaLink.body.error_code).toBe(400);
      expect(viaLink.body.description).toBe(viaSend.body.description);
    }
    // a subscription period is not refused, and not made either
    const monthly = await botCall(server.url, token, "createInvoiceLink", {
      title: "T",
      payload: "p",
      prices: prices(1),
      subscription_period: 2592000,
    });
    expect(monthly.body.result).toStartWith(`${server.url}/pay/`);
    const fractional = await botCall(server.url, token, "createInvoiceLink", {
      title: "T",
      payload: "p",
      prices: prices(1.5),
    });
    expect(fractional.body.description).toBe(
      "Bad Request: prices[0].amount must be a positive Integer number of stars",
    );
  });
});
