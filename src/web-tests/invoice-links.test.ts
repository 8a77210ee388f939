import { describe, expect } from "bun:test";
import { Bot } from "grammy";
import type { SuccessfulPayment } from "grammy/types";
import { grantStars } from "../domain/stars/service";
import { newPerson, pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { createBotViaApi, waitFor, waitForLongPoll } from "../testing/botapi";
import { makeUser, signedInClient } from "../testing/fixtures";

// A bot's invoice link (createInvoiceLink) opened in the web app: signed out, the sign-in form
// comes first and then the invoice; Pay goes through the bot's pre-checkout answer.
const suite = browserSuite({ "payments.preCheckoutTimeoutSeconds": 2 });
const it = suite.it;

describe("web app: invoice links", () => {
  it("opens a bot's invoice link after signing in, shows the invoice and pays it", async () => {
    const { client: owner } = await signedInClient(suite.server);
    const token = await createBotViaApi(owner, "poster_link_bot", "Poster shop");
    const bot = new Bot(token, { client: { apiRoot: suite.server.url } });
    const paid: SuccessfulPayment[] = [];
    bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    bot.on("message:successful_payment", (ctx) => void paid.push(ctx.message.successful_payment));
    const running = bot.start({ timeout: 1, drop_pending_updates: true });
    try {
      // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
      await waitForLongPoll(suite.server.app, token);
      const link = await bot.api.createInvoiceLink(
        "Signed poster",
        "A poster, signed by the band",
        "poster-7",
        "",
        "XTR",
        [
          { label: "Poster", amount: 20 },
          { label: "Shipping", amount: 5 },
        ],
      );
      const buyer = await makeUser(suite.server.app, { displayName: "Buyer" });
      await grantStars(suite.server.app, buyer.id, 100, "welcome");

      const { page } = await newPerson(suite.browser, suite.server.url);
      suite.watch(page);
      await page.goto(link);
      await page.getByLabel("Email", { exact: true }).fill(buyer.email!);
      await page.getByLabel("Password", { exact: true }).fill(buyer.password);
      await page.getByRole("button", { name: "Sign in" }).click();

      await page.getByRole("heading", { level: 1, name: "Signed poster" }).waitFor();
      await page.getByText("A poster, signed by the band").waitFor();
      await page.getByRole("link", { name: "Poster shop" }).waitFor();
      await page.getByText("Total: ★ 25").waitFor();
      await page.getByText("Your balance: ★ 100").waitFor();
      await expectAccessible(page);

      await page.getByRole("button", { name: "Pay ★25" }).click();
      const sheet = page.getByRole("dialog", { name: "Pay for Signed poster" });
      await sheet.getByRole("button", { name: "Pay ★25" }).click();
      await sheet.getByText("Paid.").waitFor();
      await expectAccessible(page);
      await sheet.getByRole("button", { name: "Done" }).click();
      await page.getByText("Your balance: ★ 75").waitFor();
      await waitFor(() => paid.length === 1, 5000, "successful_payment");
      expect(paid[0]).toMatchObject({ invoice_payload: "poster-7", total_amount: 25, currency: "XTR" });

      // the receipt is in the chat with the bot
      await page.getByRole("link", { name: "Open the chat with Poster shop" }).click();
      const chat = page.getByRole("region", { name: "Message history" });
      await chat.getByText('Buyer paid 25 ⭐ to Poster shop for "Signed poster"').waitFor();
      await chat.getByRole("region", { name: "Invoice: Signed poster" }).getByText("Paid", { exact: true }).waitFor();

      // an unknown link says so
      await page.goto("/pay/not-a-real-link");
      await page
        .getByRole("alert")
        .getByText(/not found/i)
        .waitFor();
      expect(pageProblems(page).filter((p) => !/404/.test(p))).toEqual([]);
    } finally {
      await bot.stop();
      await running;
    }
  });
});
