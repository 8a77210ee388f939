import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import { join } from "node:path";
import { Telegraf, Markup } from "telegraf";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import { botWorld, createBotViaApi, openChat, runBotProcess, waitForMessage } from "../testing/botapi";

let server: TestServer;
let owner: TestClient;
let person: TestClient;

beforeAll(async () => void ({ server, owner, person } = await botWorld({ "bot.allowPrivateWebhooks": true })));
afterAll(() => server.stop());

describe("Telegraf with apiRoot at the instance root", () => {
  // Telegraf streams multipart bodies through node-fetch, which Bun's fetch shim never finishes:
  // the polling bot runs under Node, as Telegraf bots do in production
  test("polling (under Node): start link, text, photo and document as parts named after the field, location, dice", async () => {
    const token = await createBotViaApi(owner, "telegraf_poll_bot", "Telegraf Poll");
    const bot = await runBotProcess(
      ["node", join(import.meta.dir, "fixtures", "telegraf-bot.cjs"), server.url, token],
      10_000,
    );
    try {
      const cid = await openChat(person, "telegraf_poll_bot", "abc_1");
      await waitForMessage(person, cid, (m) => m.content === "started with abc_1");
      await person.post(`/api/social/messages/${cid}`, { content: "hi" });
      await waitForMessage(person, cid, (m) => m.content === "telegraf: hi");
      await person.post(`/api/social/messages/${cid}`, { content: "files" });
      const photo = await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "image");
      expect(photo.content).toBe("a dot");
      const doc = await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "file");
      expect(doc.media[0].name).toBe("hello.txt");
      const body = await fetch(server.url + new URL(doc.media[0].url).pathname);
      expect(await body.text()).toBe("hello document");
      await person.post(`/api/social/messages/${cid}`, { content: "where" });
      const loc = await waitForMessage(person, cid, (m) => m.location);
      expect(loc.location).toEqual({ latitude: 59.33, longitude: 18.06 });
      await person.post(`/api/social/messages/${cid}`, { content: "roll" });
      const dice = await waitForMessage(person, cid, (m) => m.dice);
      expect(dice.dice.value).toBeGreaterThanOrEqual(1);
      expect(dice.dice.value).toBeLessThanOrEqual(6);
    } finally {
      await bot.stop();
    }
  }, 25_000);

  test("webhook: a button press is answered through the webhook reply", async () => {
    const token = await createBotViaApi(owner, "telegraf_hook_bot", "Telegraf Hook");
    const bot = new Telegraf(token, { telegram: { apiRoot: server.url, webhookReply: true } });
    bot.botInfo = await bot.telegram.getMe();
    bot.on("callback_query", (ctx) => ctx.answerCbQuery("answered by webhook reply", { show_alert: true }));
    bot.on("text", (ctx) => ctx.reply("Press it", Markup.inlineKeyboard([Markup.button.callback("Press", "pressed")])));
    const handler = bot.webhookCallback("/tg", { secretToken: "telegraf_secret" });
    const http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
    const port = (http.address() as { port: number }).port;
    try {
      await bot.telegram.setWebhook(`http://127.0.0.1:${port}/tg`, { secret_token: "telegraf_secret" });
      const cid = await openChat(person, "telegraf_hook_bot");
      await person.post(`/api/social/messages/${cid}`, { content: "buttons please" });
      const msg = await waitForMessage(person, cid, (m) => m.content === "Press it");
      const press = await person.post(`/api/social/messages/${cid}/${msg.id}/callback`, { data: "pressed" });
      expect(press.status).toBe(200);
      expect(press.body.data.answer).toEqual({ text: "answered by webhook reply", showAlert: true, url: null });
      const info = await bot.telegram.getWebhookInfo();
      expect(info.pending_update_count).toBe(0);
    } finally {
      await bot.telegram.deleteWebhook();
      await new Promise((resolve) => http.close(resolve));
    }
  }, 15_000);

  test("errors reach Telegraf as TelegramError with the compatible description", async () => {
    const token = await createBotViaApi(owner, "telegraf_err_bot");
    const bot = new Telegraf(token, { telegram: { apiRoot: server.url } });
    await expect(bot.telegram.sendMessage(123456789, "x")).rejects.toMatchObject({
      response: { ok: false, error_code: 400, description: "Bad Request: chat not found" },
    });
    const wrong = new Telegraf(`${token.split(":")[0]}:${"z".repeat(36)}`, { telegram: { apiRoot: server.url } });
    await expect(wrong.telegram.getMe()).rejects.toMatchObject({
      response: { error_code: 401, description: "Unauthorized" },
    });
  });
});
