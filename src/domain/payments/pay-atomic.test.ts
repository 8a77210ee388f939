import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import type { UserRow } from "../users/table";
import { botCall, createBotViaApi, history, openChat } from "../../testing/botapi";
import { withInsertFault } from "../../testing/faults";
import { grantStars } from "../stars/service";
import { answerQuery } from "./checkout";
import { botApiUserId } from "../bots/ids";

/*
 * The payment paths are composed transactions: a charge commits with the invoice showing
 * paid and its service message, and an invoice message with its invoice row. Faults are
 * injected in the database (a trigger refusing one insert), so the tests hold whatever the
 * code looks like: before, the charge committed and the service message was lost, and an
 * invoice message stayed in the chat without an invoice behind it.
 */

let server: TestServer;
let person: TestClient;
let personUser: UserRow;
let token: string;
let cid: string;

beforeAll(async () => {
  server = await startTestServer();
  const owner = (await signedInClient(server)).client;
  ({ client: person, user: personUser } = await signedInClient(server));
  token = await createBotViaApi(owner, "atomic_pay_bot", "Shop");
  cid = await openChat(person, "atomic_pay_bot");
  await grantStars(server.app, personUser.id, 100, "welcome");
  // the bot says yes to every pre-checkout query, straight away
  server.app.hooks.on("payment:pre-checkout", async ({ queryId }) => {
    const bot = await server.app.db.selectFrom("bots").select("id").executeTakeFirstOrThrow();
    await answerQuery(server.app, bot.id, queryId, { ok: true, errorMessage: null });
  });
});
afterAll(() => server.stop());

const balance = async () => (await person.get("/api/stars/balance")).body.data.balance as number;

test("an invoice message is stored with its invoice or not at all", async () => {
  const before = (await history(person, cid)).length;
  const chatId = botApiUserId(personUser.id);
  const failed = await withInsertFault(server.app.db, "star_invoices", () =>
    botCall(server.url, token, "sendInvoice", {
      chat_id: chatId,
      title: "Coffee",
      description: "Hot",
      payload: "p1",
      currency: "XTR",
      prices: JSON.stringify([{ label: "cup", amount: 30 }]),
    }),
  );
  expect(failed.body.ok).toBe(false);
  expect((await history(person, cid)).length).toBe(before);

  const sent = await botCall(server.url, token, "sendInvoice", {
    chat_id: chatId,
    title: "Coffee",
    description: "Hot",
    payload: "p1",
    currency: "XTR",
    prices: JSON.stringify([{ label: "cup", amount: 30 }]),
  });
  expect(sent.body.ok).toBe(true);
  expect((await history(person, cid)).length).toBe(before + 1);
});

test("a charge commits with its service message: a failure leaves the balance, the invoice and the chat as they were", async () => {
  const chatId = botApiUserId(personUser.id);
  const sent = await botCall(server.url, token, "sendInvoice", {
    chat_id: chatId,
    title: "Tea",
    description: "Green",
    payload: "p2",
    currency: "XTR",
    prices: JSON.stringify([{ label: "cup", amount: 25 }]),
  });
  expect(sent.body.ok).toBe(true);
  const invoiceMessage = (await history(person, cid)).find((m) => m.messageId === sent.body.result.message_id);
  const startBalance = await balance();
  const messagesBefore = (await history(person, cid)).length;

  // the service message is the system message the payment posts
  const failed = await withInsertFault(server.app.db, "messages WHEN NEW.kind = 'system'", () =>
    person.post(`/api/social/messages/${cid}/${invoiceMessage.id}/pay`),
  );
  expect(failed.status).toBe(500);
  expect(await balance()).toBe(startBalance);
  expect((await history(person, cid)).length).toBe(messagesBefore);
  const invoice = await server.app.db
    .selectFrom("star_invoices")
    .select("status")
    .where("payload", "=", "p2")
    .executeTakeFirstOrThrow();
  expect(invoice.status).toBe("unpaid");
  expect(await server.app.db.selectFrom("star_payments").select("id").where("payload", "=", "p2").execute()).toEqual(
    [],
  );

  const paid = await person.post(`/api/social/messages/${cid}/${invoiceMessage.id}/pay`);
  expect(paid.status).toBe(200);
  expect(paid.body.data).toEqual({ status: "paid", balance: startBalance - 25 });
  expect((await history(person, cid)).length).toBe(messagesBefore + 1);
});
