import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { Bot, InputFile } from "grammy";
import type { Page } from "playwright-core";
import {
  browserAvailable,
  pageProblems,
  signedInPage,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";
import { botCall, createBotViaApi, openChat, PNG_1x1, waitFor, waitForLongPoll } from "../testing/botapi";
import { botApiUserId } from "../domain/bots/ids";
import { quickPerson } from "../testing/fixtures";
import { grantStars } from "../domain/stars/service";
import type { TestClient } from "../testing/client";
import { startTestServer, type TestServer } from "../testing/server";

// A person talks to a real grammY bot (running in this process, long polling the test
// server) in the browser, the way the bot's developer expects it to look and behave.
const run = browserAvailable();
let server: TestServer;
let owner: TestClient;
const pages: Page[] = [];
const b = run ? useBrowser() : null;

beforeAll(async () => {
  server = await startTestServer({ "payments.preCheckoutTimeoutSeconds": 2 });
  owner = (await quickPerson(server)).client;
});
afterAll(() => server?.stop());

const it = (name: string, body: () => Promise<void>) =>
  test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 90_000);
const messageItem = (page: Page, text: string | RegExp) =>
  page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: text }) });

/** Starts BOT's long polling and waits until the server holds its poll. */
async function startBot(bot: Bot, token: string): Promise<() => Promise<void>> {
  const running = bot.start({ timeout: 1, drop_pending_updates: true });
  await waitForLongPoll(server.app, token);
  return async () => {
    await bot.stop();
    await running;
  };
}

/** The check the spec gives bots for mini-app launch data (service-api.md, "Mini-app launch data"). */
function launchDataValid(initData: string, token: string): boolean {
  const params = new URLSearchParams(initData);
  const hash = params.get("hash");
  params.delete("hash");
  const check = [...params]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join("\n");
  const secret = createHmac("sha256", "WebAppData")
    .update(createHash("sha256").update(token.split(":")[1]!).digest())
    .digest();
  return hash === createHmac("sha256", secret).update(check).digest("hex");
}

describe("web app: a grammY bot as its developer expects", () => {
  it("start link, description, commands, every inline button kind, mini-app, reply keyboard, force reply, edits, photo and document", async () => {
    const token = await createBotViaApi(owner, "helper_web_bot", "Helper");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    await bot.api.setMyCommands([
      { command: "help", description: "What I can do" },
      { command: "colors", description: "Pick a color" },
    ]);
    await bot.api.setMyDescription("I show every kind of button.");
    await bot.api.setChatMenuButton({
      menu_button: { type: "web_app", text: "Shop", web_app: { url: "https://miniapp.example/shop" } },
    });
    const starts: string[] = [];
    const launches: string[] = [];
    bot.command("start", async (ctx) => {
      starts.push(ctx.match);
      await ctx.reply(`Welcome, label ${ctx.match}. <b>Bold</b> and hidden <tg-spoiler>secret</tg-spoiler>`, {
        parse_mode: "HTML",
        reply_markup: {
          inline_keyboard: [
            [
              { text: "Toast", callback_data: "toast" },
              { text: "Alert", callback_data: "alert" },
              { text: "Edit me", callback_data: "edit" },
            ],
            [
              { text: "Docs", url: "https://example.com/docs" },
              { text: "Copy code", copy_text: { text: "PROMO-42" } },
              { text: "Search", switch_inline_query_current_chat: "pizza" },
            ],
            [
              { text: "Open app", web_app: { url: "https://miniapp.example/app" } },
              { text: "Silent", callback_data: "silent" },
            ],
          ],
        },
      });
    });
    bot.callbackQuery("toast", (ctx) => ctx.answerCallbackQuery({ text: "Toasted!" }));
    bot.callbackQuery("alert", (ctx) => ctx.answerCallbackQuery({ text: "This is an alert", show_alert: true }));
    // never answered: the button spins until the server stops waiting
    bot.callbackQuery("silent", () => undefined);
    bot.callbackQuery("edit", async (ctx) => {
      await ctx.editMessageText("Edited in place by the bot");
      await ctx.answerCallbackQuery();
    });
    bot.command("colors", (ctx) =>
      ctx.reply("Pick a color", {
        reply_markup: {
          keyboard: [[{ text: "Red" }, { text: "Blue" }]],
          resize_keyboard: true,
          one_time_keyboard: true,
          input_field_placeholder: "Your color",
        },
      }),
    );
    bot.hears(/^(Red|Blue)$/, (ctx) =>
      ctx.reply(`You picked ${ctx.match[1]}`, { reply_markup: { remove_keyboard: true } }),
    );
    bot.hears("ask me", (ctx) => ctx.reply("What is your name?", { reply_markup: { force_reply: true } }));
    bot.hears("photo please", (ctx) => ctx.replyWithPhoto(new InputFile(PNG_1x1, "dot.png"), { caption: "a dot" }));
    bot.hears("doc please", (ctx) =>
      ctx.replyWithDocument(new InputFile(new TextEncoder().encode("grammY notes"), "notes.txt")),
    );
    bot.on("message:text", (ctx) =>
      ctx.reply(
        `echo: ${ctx.message.text}${ctx.message.reply_to_message ? ` (reply to ${ctx.message.reply_to_message.text})` : ""}`,
      ),
    );
    const stop = await startBot(bot, token);
    try {
      const { page, context } = await signedInPage(b!.browser, server, undefined, { displayName: "Pat" });
      pages.push(page);
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      // the mini-app's own site, served to the frame: it sends its launch data home, as a mini-app does
      await context.route("https://miniapp.example/**", async (route) => {
        const url = new URL(route.request().url());
        if (url.pathname === "/verify") {
          launches.push(route.request().postData() ?? "");
          return route.fulfill({ status: 204 });
        }
        return route.fulfill({
          contentType: "text/html",
          body: `<!doctype html><title>Mini-app</title><h1>Mini-app</h1><script>const p=new URLSearchParams(location.hash.slice(1));fetch("/verify",{method:"POST",body:p.get("tgWebAppData")});document.body.append("has launch data: "+p.has("tgWebAppData"))</script>`,
        });
      });

      // an empty chat with a bot shows its description and a Start button
      await page.goto("/dashboard/messages?user=helper_web_bot");
      await page.getByText("I show every kind of button.").waitFor();
      await page.getByRole("button", { name: "Start" }).waitFor();
      await expectAccessible(page);

      // the start link says what START sends and reaches the bot once, on the press; a reload
      // before it sends nothing, nor does one after it
      await page.goto("/dashboard/messages?user=helper_web_bot&start=promo-42");
      const prompt = page.getByRole("region", { name: "Start the bot" });
      await prompt.getByText("/start promo-42").waitFor();
      await page.reload();
      await prompt.getByRole("button", { name: "START" }).click();
      const welcome = messageItem(page, "Welcome, label promo-42");
      await welcome.waitFor();
      expect(starts).toEqual(["promo-42"]);
      await welcome.locator("strong", { hasText: "Bold" }).waitFor();
      await page.reload();
      await welcome.waitFor();
      await page.waitForTimeout(300);
      expect(starts).toEqual(["promo-42"]);

      // the spoiler is hidden until tapped
      await welcome.getByRole("button", { name: "Spoiler: show hidden text" }).click();
      await welcome.locator(".spoiler.shown", { hasText: "secret" }).waitFor();

      // callback_data: a toast, and a modal alert for show_alert
      await welcome.getByRole("button", { name: "Toast" }).click();
      await page.getByRole("status").filter({ hasText: "Toasted!" }).waitFor();
      await welcome.getByRole("button", { name: "Alert" }).click();
      const alert = page.getByRole("dialog", { name: "Message from the bot" });
      await alert.getByText("This is an alert").waitFor();
      await expectAccessible(page);
      await alert.getByRole("button", { name: "OK" }).click();
      // a callback the bot never answers: a spinner, then the app says so
      await welcome.getByRole("button", { name: "Silent" }).click();
      await welcome.locator('button[aria-busy="true"]', { hasText: "Silent" }).waitFor();
      await page.getByRole("status").filter({ hasText: "The bot did not answer." }).waitFor({ timeout: 15_000 });
      expect(await welcome.getByRole("button", { name: "Silent" }).getAttribute("aria-busy")).toBeNull();

      // url: a confirmation before leaving for an external site
      await welcome.getByRole("button", { name: "Docs" }).click();
      const confirm = page.getByRole("dialog", { name: "Open this link?" });
      await confirm.getByText("https://example.com/docs").waitFor();
      await confirm.getByRole("button", { name: "Cancel" }).click();

      // copy_text copies; switch_inline_query_current_chat fills the input
      await welcome.getByRole("button", { name: "Copy code" }).click();
      await page.getByRole("status").filter({ hasText: "Copied to the clipboard" }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("PROMO-42");
      await welcome.getByRole("button", { name: "Search" }).click();
      expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("@helper_web_bot pizza");
      await page.getByLabel("Message", { exact: true }).fill("");

      // web_app: the mini-app in a sandboxed frame with launch data the bot can verify
      await welcome.getByRole("button", { name: "Open app" }).click();
      const frame = page.frameLocator('iframe[title="Mini-app: Helper"]');
      await frame.getByText("has launch data: true").waitFor();
      expect(await page.locator("iframe").getAttribute("sandbox")).toContain("allow-scripts");
      await waitFor(() => launches.length > 0, 5000, "the mini-app's launch data");
      expect(launchDataValid(launches[0]!, token)).toBe(true);
      await page.getByRole("button", { name: "Close mini-app" }).click();

      // the bot's menu button (setChatMenuButton with a web_app) opens its mini-app beside the input
      await page.getByRole("button", { name: "Shop", exact: true }).click();
      await frame.getByText("has launch data: true").waitFor();
      await waitFor(() => launches.length > 1, 5000, "the menu mini-app's launch data");
      expect(launchDataValid(launches[1]!, token)).toBe(true);
      await page.getByRole("button", { name: "Close mini-app" }).click();

      // the bot edits its message in place
      await welcome.getByRole("button", { name: "Edit me" }).click();
      await messageItem(page, "Edited in place by the bot").locator(".msg-meta").getByText("edited").waitFor();
      expect(await messageItem(page, "Welcome, label").count()).toBe(0);

      // its commands are offered on "/"
      await page.getByLabel("Message", { exact: true }).fill("/");
      const commands = page.getByRole("list", { name: "Bot commands" });
      await commands.getByRole("button", { name: /\/help/ }).waitFor();
      await commands.getByRole("button", { name: /\/colors/ }).click();

      // a reply keyboard replaces the input's keyboard area; one press sends and hides it
      const keyboard = page.getByRole("group", { name: "Bot keyboard" });
      await keyboard.getByRole("button", { name: "Red" }).waitFor();
      expect(await page.getByLabel("Message", { exact: true }).getAttribute("placeholder")).toBe("Your color");
      await keyboard.getByRole("button", { name: "Red" }).click();
      await messageItem(page, "You picked Red").waitFor();
      await keyboard.waitFor({ state: "detached" });

      // force_reply puts the input into reply mode
      await page.getByLabel("Message", { exact: true }).fill("ask me");
      await page.getByRole("button", { name: "Send" }).click();
      await messageItem(page, "What is your name?").waitFor();
      await page.getByText("Replying to @helper_web_bot").waitFor();
      await page.getByLabel("Message", { exact: true }).fill("Pat");
      await page.getByRole("button", { name: "Send" }).click();
      await messageItem(page, "echo: Pat (reply to What is your name?)").waitFor();

      // a photo (opens in the viewer) and a document from the bot
      await page.getByLabel("Message", { exact: true }).fill("photo please");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByRole("button", { name: "Open photo" }).click();
      await page.getByRole("dialog").getByRole("img").waitFor();
      await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
      // typing into the page while the modal is still open would go nowhere
      await page.getByRole("dialog").waitFor({ state: "hidden" });
      await page.getByLabel("Message", { exact: true }).fill("doc please");
      await page.getByRole("button", { name: "Send" }).click();
      const doc = page.getByRole("link", { name: /notes\.txt/ });
      await doc.waitFor();
      expect(
        await (await fetch(server.url + new URL((await doc.getAttribute("href"))!, server.url).pathname)).text(),
      ).toBe("grammY notes");

      await expectAccessible(page);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    } finally {
      await stop();
    }
  });

  it("payments: an invoice paid, one declined with the bot's message, one timed out; the balance changes live", async () => {
    const token = await createBotViaApi(owner, "cafe_web_bot", "Cafe");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const paid: string[] = [];
    // the first invoice carries the bot's own keyboard with a pay button (which must come first)
    bot.hears(/^buy (\w+)$/, (ctx) =>
      ctx.replyWithInvoice(
        `Coffee ${ctx.match[1]}`,
        "Hot coffee, freshly made",
        ctx.match[1]!,
        "XTR",
        [{ label: "Coffee", amount: 30 }],
        ctx.match[1] === "ok"
          ? {
              reply_markup: {
                inline_keyboard: [
                  [{ text: "Pay 30 stars now", pay: true }],
                  [{ text: "Menu", url: "https://example.com/menu" }],
                ],
              },
            }
          : {},
      ),
    );
    bot.on("pre_checkout_query", async (ctx) => {
      const payload = ctx.preCheckoutQuery.invoice_payload;
      if (payload === "slow") return; // never answered: the payment times out
      await (payload === "ok"
        ? ctx.answerPreCheckoutQuery(true)
        : ctx.answerPreCheckoutQuery(false, { error_message: "Out of beans" }));
    });
    bot.on("message:successful_payment", (ctx) => void paid.push(ctx.message.successful_payment.invoice_payload));
    const stop = await startBot(bot, token);
    try {
      const { page, context, user } = await signedInPage(b!.browser, server, undefined, { displayName: "Payer" });
      pages.push(page);
      await grantStars(server.app, user.id, 100);
      await page.goto("/dashboard/messages?user=cafe_web_bot");
      const send = async (text: string) => {
        await page.getByRole("dialog").waitFor({ state: "hidden" });
        await page.getByLabel("Message", { exact: true }).fill(text);
        await page.getByRole("button", { name: "Send" }).click();
      };

      // paid: the confirmation shows the balance, the result, and the balance drops
      await send("buy ok");
      const invoice = page.getByRole("region", { name: "Invoice: Coffee ok" });
      await invoice.getByText("Hot coffee, freshly made").waitFor();
      await invoice.getByText("★ 30").waitFor();
      // the inline keyboard's pay button stands in for the app's own Pay
      const okItem = page.getByRole("listitem").filter({ has: invoice });
      expect(await okItem.getByRole("button", { name: /^Pay/ }).count()).toBe(1);
      await okItem.getByRole("button", { name: "Pay 30 stars now" }).click();
      const sheet = page.getByRole("dialog", { name: "Pay for Coffee ok" });
      await sheet.getByText("Your balance: ★ 100").waitFor();
      await expectAccessible(page);
      await sheet.getByRole("button", { name: /^Pay/ }).click();
      await sheet.getByRole("alert").filter({ hasText: "Paid." }).waitFor();
      await sheet.getByText("Your balance: ★ 70").waitFor();
      await waitFor(() => paid.includes("ok"), 5000, "successful_payment");
      await sheet.getByRole("button", { name: "Done" }).click();
      await invoice.getByText("Paid", { exact: true }).waitFor();
      // paid: its pay button has nothing left to do; the other buttons stay
      await okItem.getByRole("button", { name: "Pay 30 stars now" }).waitFor({ state: "detached" });
      await okItem.getByRole("button", { name: "Menu" }).waitFor();

      // declined with the bot's error_message; nothing charged
      await send("buy no");
      const declined = page.getByRole("region", { name: "Invoice: Coffee no" });
      await page.getByRole("listitem").filter({ has: declined }).getByRole("button", { name: /^Pay/ }).click();
      const sheet2 = page.getByRole("dialog", { name: "Pay for Coffee no" });
      await sheet2.getByRole("button", { name: /^Pay/ }).click();
      await sheet2.getByRole("alert").filter({ hasText: "Declined: Out of beans" }).waitFor();
      await sheet2.getByText("Your balance: ★ 70").waitFor();
      await sheet2.getByRole("button", { name: "Done" }).click();

      // timed out: the bot never answers
      await send("buy slow");
      const slow = page.getByRole("region", { name: "Invoice: Coffee slow" });
      await page.getByRole("listitem").filter({ has: slow }).getByRole("button", { name: /^Pay/ }).click();
      const sheet3 = page.getByRole("dialog", { name: "Pay for Coffee slow" });
      await sheet3.getByRole("button", { name: /^Pay/ }).click();
      await sheet3.getByText("Waiting for the bot to confirm…").waitFor();
      await sheet3.getByRole("alert").filter({ hasText: "did not confirm in time" }).waitFor();
      await sheet3.getByText("Your balance: ★ 70").waitFor();
      await sheet3.getByRole("button", { name: "Done" }).click();

      // a grant made elsewhere reaches the open page live
      await grantStars(server.app, user.id, 5);
      await page.getByRole("listitem").filter({ has: slow }).getByRole("button", { name: /^Pay/ }).click();
      await sheet3.getByText("Your balance: ★ 75").waitFor();
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    } finally {
      await stop();
    }
  });

  it("a voice message sent by the person reaches the bot; a group created with the bot tells it (my_chat_member)", async () => {
    const token = await createBotViaApi(owner, "club_web_bot", "Club");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const memberships: string[] = [];
    const voices: number[] = [];
    bot.on("message:voice", async (ctx) => {
      voices.push(ctx.message.voice.duration);
      await ctx.reply(`got a voice of ${ctx.message.voice.duration} s`);
    });
    let groupChatId = 0;
    bot.on("my_chat_member", (ctx) => {
      memberships.push(`${ctx.myChatMember.chat.type}:${ctx.myChatMember.new_chat_member.status}`);
      groupChatId = ctx.myChatMember.chat.id;
    });
    const stop = await startBot(bot, token);
    try {
      const { page, context } = await signedInPage(b!.browser, server, undefined, { displayName: "Vic" });
      pages.push(page);
      await page.goto("/dashboard/messages?user=club_web_bot");
      await page.getByRole("button", { name: "Start" }).waitFor();

      // no microphone here: a generated one-second WAV goes the same way a recording does
      await page
        .getByLabel("Choose a file to attach")
        .setInputFiles({ name: "voice.wav", mimeType: "audio/wav", buffer: sineWav(1) });
      await page
        .getByRole("listitem")
        .filter({ has: page.getByLabel("Voice message, 0:01") })
        .waitFor();
      await messageItem(page, "got a voice of 1 s").waitFor();
      expect(voices).toEqual([1]);

      // a group with the bot as a member
      await page.getByRole("button", { name: "New group" }).click();
      const dialog = page.getByRole("dialog", { name: "New group" });
      await dialog.getByLabel("Group title").fill("Coffee club");
      await dialog.getByLabel("Members").fill("club_web_bot");
      await dialog.getByRole("button", { name: "Create group" }).click();
      await page.getByRole("heading", { level: 2, name: "Coffee club" }).waitFor();
      await waitFor(() => memberships.includes("group:member"), 5000, "my_chat_member");
      await page.getByRole("button", { name: "Group info" }).click();
      const info = page.getByRole("complementary", { name: "Group info" });
      await info.getByText("creator").waitFor();
      await info.getByText("@club_web_bot").waitFor();
      await info.getByRole("button", { name: "Make club_web_bot admin" }).click();
      await info.getByText("administrator").waitFor();
      // the bot, an administrator now, describes the group; the open panel shows it, and the
      // person's own description is what the bot reads back
      expect(await bot.api.setChatDescription(groupChatId, "Beans and talk")).toBe(true);
      await waitFor(
        async () => (await info.getByLabel("Description").inputValue()) === "Beans and talk",
        5000,
        "the description in the open panel",
      );
      await info.getByLabel("Description").fill("Beans, talk and cake");
      await info.getByRole("button", { name: "Save description" }).click();
      await waitFor(
        async () => (await bot.api.getChat(groupChatId)).description === "Beans, talk and cake",
        5000,
        "the description the bot reads",
      );
      await expectAccessible(page);
      await info.getByRole("button", { name: "Remove club_web_bot" }).click();
      await waitFor(
        () => memberships.some((m) => m === "group:left" || m === "group:kicked"),
        5000,
        "my_chat_member on removal",
      );
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    } finally {
      await stop();
    }
  });

  it("a poll: the person votes in the app, the grammY bot gets poll_answer and stops the poll, the app shows it closed", async () => {
    const token = await createBotViaApi(owner, "survey_web_bot", "Survey");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const answers: number[][] = [];
    const sent = new Map<string, { chatId: number; messageId: number }>();
    bot.command("poll", async (ctx) => {
      const m = await ctx.replyWithPoll("Lunch?", [{ text: "Pizza" }, { text: "Salad" }, { text: "Soup" }], {
        is_anonymous: false,
      });
      sent.set(m.poll.id, { chatId: m.chat.id, messageId: m.message_id });
    });
    let final: { is_closed: boolean; total_voter_count: number } | undefined;
    bot.on("poll_answer", async (ctx) => {
      answers.push(ctx.pollAnswer.option_ids);
      // the second answer (after a vote taken back) ends the poll
      if (answers.length < 3) return;
      const where = sent.get(ctx.pollAnswer.poll_id)!;
      final = await ctx.api.stopPoll(where.chatId, where.messageId);
    });
    const stop = await startBot(bot, token);
    try {
      const { page, context } = await signedInPage(b!.browser, server, undefined, { displayName: "Val" });
      pages.push(page);
      await page.goto("/dashboard/messages?user=survey_web_bot");
      await page.getByRole("dialog").waitFor({ state: "hidden" });
      await page.getByLabel("Message", { exact: true }).fill("/poll");
      await page.getByRole("button", { name: "Send" }).click();

      const poll = page.getByRole("form", { name: "Poll: Lunch?" });
      await poll.getByText("Public poll: the bot sees your vote").waitFor();
      await expectAccessible(page);
      await poll.getByLabel("Salad").check();
      await poll.getByRole("button", { name: "Vote" }).click();
      const results = page.getByRole("region", { name: "Poll: Lunch?" });
      await results.getByText("Salad (your vote)").waitFor();
      await results.getByText("1 voted").waitFor();
      await waitFor(() => answers.length === 1, 5000, "poll_answer");
      expect(answers).toEqual([[1]]);

      // take it back and choose again: the bot hears both, then stops the poll
      await results.getByRole("button", { name: "Take back my vote" }).click();
      await page.getByRole("form", { name: "Poll: Lunch?" }).getByLabel("Soup").check();
      await page.getByRole("form", { name: "Poll: Lunch?" }).getByRole("button", { name: "Vote" }).click();
      await waitFor(() => final !== undefined, 10_000, "the bot to stop the poll");
      expect(answers).toEqual([[1], [], [2]]);
      expect(final).toMatchObject({ is_closed: true, total_voter_count: 1 });
      // the closed poll reaches the open page live: results, no way to change the vote
      await results.getByText("1 voted · Poll closed").waitFor();
      await results.getByText("Soup (your vote)").waitFor();
      expect(await results.getByRole("button", { name: "Take back my vote" }).count()).toBe(0);
      await expectAccessible(page);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    } finally {
      await stop();
    }
  });

  it("a protected message (protect_content) offers no Forward, Copy text or download", async () => {
    const token = await createBotViaApi(owner, "guarded_web_bot", "Guarded");
    const { page, client, user } = await signedInPage(b!.browser, server);
    pages.push(page);
    await openChat(client, "guarded_web_bot");
    const chatId = botApiUserId(user.id);
    await botCall(server.url, token, "sendMessage", { chat_id: chatId, text: "a secret note", protect_content: true });
    await botCall(server.url, token, "sendMessage", { chat_id: chatId, text: "a shareable note" });
    const doc = new FormData();
    doc.set("chat_id", String(chatId));
    doc.set("protect_content", "true");
    doc.set("document", new File([new TextEncoder().encode("sealed")], "sealed.txt", { type: "text/plain" }));
    expect((await fetch(`${server.url}/bot${token}/sendDocument`, { method: "POST", body: doc })).status).toBe(200);

    await page.goto("/dashboard/messages?user=guarded_web_bot");
    const secret = messageItem(page, "a secret note");
    await secret.getByRole("button", { name: "Message actions" }).click();
    await secret.getByRole("button", { name: "Reply" }).waitFor();
    expect(await secret.getByRole("button", { name: "Forward" }).count()).toBe(0);
    expect(await secret.getByRole("button", { name: "Copy text" }).count()).toBe(0);
    await page.keyboard.press("Escape");
    const shareable = messageItem(page, "a shareable note");
    await shareable.getByRole("button", { name: "Message actions" }).click();
    await shareable.getByRole("button", { name: "Forward" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByText("sealed.txt").waitFor();
    expect(await page.getByRole("link", { name: /sealed\.txt/ }).count()).toBe(0);
    await expectAccessible(page);
  });
});

/** A mono 16-bit WAV of SECONDS of a 440 Hz tone. */
function sineWav(seconds: number): Buffer {
  const rate = 8000;
  const n = rate * seconds;
  const buf = Buffer.alloc(44 + n * 2);
  buf.write("RIFF", 0);
  buf.writeUInt32LE(36 + n * 2, 4);
  buf.write("WAVEfmt ", 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36);
  buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++)
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12000), 44 + i * 2);
  return buf;
}
