import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot, InlineKeyboard } from "grammy";
import { join } from "node:path";
import { Bot as NtbaBot, InlineKeyboardBuilder } from "node-telegram-bot-api";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { grantStars } from "../domain/stars/service";
import { storeUpload } from "../media/uploads";
import { botWorld, createBotViaApi, openChat, runBotProcess, waitFor, waitForMessage } from "../testing/botapi";
import { pngOf } from "../testing/media";

/**
 * The example bots grammY, Telegraf and node-telegram-bot-api publish in their own docs and
 * READMEs, as written there but for the API root (and the token), driven by a person on the
 * Client API.
 */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;

beforeAll(async () => void ({ server, owner, person, personUser } = await botWorld()));
afterAll(() => server.stop());

/** Three bots poll at once here, on a shared machine: replies get more time than the default. */
const WAIT_MS = 15_000;
const say = (cid: string, content: string) => person.post(`/api/social/messages/${cid}`, { content });

/** The person sends a picture; resolves to the stored file's bytes. */
async function sendPicture(cid: string): Promise<Uint8Array> {
  const upload = await storeUpload(server.app, {
    ownerId: personUser.id,
    kind: "chat-image",
    data: await pngOf(server.app, 30, 20),
  });
  expect(
    (await person.post(`/api/social/messages/${cid}`, { content: "", media: [{ type: "image", url: upload.url }] }))
      .status,
  ).toBe(200);
  return new Uint8Array(await (await fetch(server.url + new URL(upload.url).pathname)).arrayBuffer());
}

/** Runs a grammY bot by long polling for the duration of FN. */
async function withGrammy(bot: Bot, fn: () => Promise<void>): Promise<void> {
  // a fresh bot has nothing pending: dropping pending updates could only race the first message
  const running = bot.start({ timeout: 1 });
  try {
    await waitFor(() => bot.isRunning(), 5000, "the grammY bot to start");
    await fn();
  } finally {
    await bot.stop();
    await running;
  }
}

describe("grammY's documented examples", () => {
  test("getting started, inline keyboard menu, stars payment, and downloading a photo with ctx.getFile()", async () => {
    const token = await createBotViaApi(owner, "grammy_docs_bot", "Docs");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    // "Getting started": commands, then everything else
    bot.command("start", (ctx) => ctx.reply("Welcome! Up and running."));
    // "Inline Keyboards": a pagination row, answered and edited on press
    const labelDataPairs = [
      ["« 1", "first"],
      ["‹ 3", "prev"],
      ["· 4 ·", "stay"],
      ["5 ›", "next"],
      ["31 »", "last"],
    ];
    const buttonRow = labelDataPairs.map(([label, data]) => InlineKeyboard.text(label!, data!));
    const keyboard = InlineKeyboard.from([buttonRow]);
    bot.command("menu", (ctx) => ctx.reply("Page 4 of 31", { reply_markup: keyboard }));
    bot.callbackQuery("next", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "Turning the page" });
      await ctx.editMessageText("Page 5 of 31", { reply_markup: keyboard });
    });
    // "Payments" with Telegram Stars: XTR, no provider
    bot.command("pay", (ctx) =>
      ctx.replyWithInvoice("Test product", "Test description", "{}", "XTR", [{ amount: 1, label: "Test product" }]),
    );
    bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    bot.on("message:successful_payment", (ctx) => ctx.reply("Thanks for your purchase!"));
    // "Files": download what a person sent
    bot.on("message:photo", async (ctx) => {
      const file = await ctx.getFile();
      const res = await fetch(`${server.url}/file/bot${token}/${file.file_path}`);
      await ctx.reply(`Downloaded ${(await res.arrayBuffer()).byteLength} bytes`);
    });
    bot.on("message", (ctx) => ctx.reply("Got another message!"));

    await withGrammy(bot, async () => {
      const cid = await openChat(person, "grammy_docs_bot");
      await say(cid, "/start");
      await waitForMessage(person, cid, (m) => m.content === "Welcome! Up and running.", WAIT_MS);
      await say(cid, "hello");
      await waitForMessage(person, cid, (m) => m.content === "Got another message!", WAIT_MS);

      await say(cid, "/menu");
      const menu = await waitForMessage(person, cid, (m) => m.content === "Page 4 of 31", WAIT_MS);
      expect(menu.replyMarkup.inline_keyboard[0].map((b: any) => b.text)).toEqual([
        "« 1",
        "‹ 3",
        "· 4 ·",
        "5 ›",
        "31 »",
      ]);
      const press = await person.post(`/api/social/messages/${cid}/${menu.id}/callback`, { data: "next" });
      expect(press.body.data.answer).toMatchObject({ text: "Turning the page" });
      await waitForMessage(person, cid, (m) => m.id === menu.id && m.content === "Page 5 of 31", WAIT_MS);

      await grantStars(server.app, personUser.id, 5, "test");
      await say(cid, "/pay");
      const invoice = await waitForMessage(person, cid, (m) => m.invoice, WAIT_MS);
      expect((await person.post(`/api/social/messages/${cid}/${invoice.id}/pay`)).body.data.status).toBe("paid");
      await waitForMessage(person, cid, (m) => m.content === "Thanks for your purchase!", WAIT_MS);

      const bytes = await sendPicture(cid);
      await waitForMessage(person, cid, (m) => m.content === `Downloaded ${bytes.length} bytes`, WAIT_MS);
    });
  }, 45_000);
});

describe("Telegraf's README examples", () => {
  // under Node, as Telegraf bots run (its node-fetch transport does not finish under Bun's shim)
  test("start/help/hears, a command router with Telegraf.reply, and getFileLink", async () => {
    const token = await createBotViaApi(owner, "telegraf_docs_bot", "Docs");
    const bot = await runBotProcess([
      "node",
      join(import.meta.dir, "fixtures", "telegraf-docs-bot.cjs"),
      server.url,
      token,
    ]);
    try {
      const cid = await openChat(person, "telegraf_docs_bot");
      await say(cid, "/start");
      await waitForMessage(person, cid, (m) => m.content === "Welcome", WAIT_MS);
      for (const [said, answer] of [
        ["/help", "Send me a sticker"],
        ["hi", "Hey there"],
        ["/oldschool", "Hello"],
        ["/hipster", "λ"],
      ]) {
        await say(cid, said!);
        await waitForMessage(person, cid, (m) => m.content === answer, WAIT_MS);
      }
      const bytes = await sendPicture(cid);
      await waitForMessage(person, cid, (m) => m.content === `fetched ${bytes.length} bytes from file`, WAIT_MS);
    } finally {
      const stderr = await bot.stop();
      expect(stderr).not.toMatch(/Error/);
    }
  }, 45_000);
});

describe("node-telegram-bot-api's README example", () => {
  test("command, hears with a capture, an inline keyboard on any message, and callback answers", async () => {
    const token = await createBotViaApi(owner, "ntba_docs_bot", "Docs");
    const bot = new NtbaBot(token, { apiRoot: server.url });
    bot.command("start", (ctx) => ctx.reply("Hi! Send me anything."));
    bot.hears(/echo (.+)/, (ctx) => ctx.reply(ctx.match![1]!));
    bot.on("message", (ctx) =>
      ctx.reply("Pick one:", {
        reply_markup: new InlineKeyboardBuilder().text("👍", "up").text("👎", "down").build(),
      }),
    );
    bot.on("callback_query", async (ctx) => {
      await ctx.answerCallbackQuery({ text: `You tapped ${ctx.callbackQuery!.data}` });
    });
    const polling = bot.startPolling(undefined, { timeout: 1 });
    try {
      const cid = await openChat(person, "ntba_docs_bot");
      await say(cid, "/start");
      await waitForMessage(person, cid, (m) => m.content === "Hi! Send me anything.", WAIT_MS);
      await say(cid, "echo repeat after me");
      await waitForMessage(person, cid, (m) => m.content === "repeat after me", WAIT_MS);
      await say(cid, "anything");
      const pick = await waitForMessage(person, cid, (m) => m.content === "Pick one:", WAIT_MS);
      const press = await person.post(`/api/social/messages/${cid}/${pick.id}/callback`, { data: "up" });
      expect(press.body.data.answer).toMatchObject({ text: "You tapped up" });
    } finally {
      await bot.stop();
      await polling;
    }
  }, 30_000);
});
