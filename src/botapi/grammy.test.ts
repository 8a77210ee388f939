import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot, InputFile, webhookCallback } from "grammy";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import {
  botWorld,
  createBotViaApi,
  history,
  openChat,
  PNG_1x1,
  waitFor,
  waitForMessage,
  waitForLongPoll,
} from "../testing/botapi";

let server: TestServer;

/** The integer id behind a group's conversation id (the Bot API shows it negated). */
async function groupIdOf(conversationCuid: string): Promise<number> {
  const row = await server.app.db
    .selectFrom("conversations")
    .select("id")
    .where("cuid", "=", conversationCuid)
    .executeTakeFirstOrThrow();
  return row.id;
}
let owner: TestClient;
let person: TestClient;

beforeAll(async () => void ({ server, owner, person } = await botWorld({ "bot.allowPrivateWebhooks": true })));
afterAll(() => server.stop());

describe("grammY against the instance", () => {
  test("long polling: start link, text, edit, button press, photo and document upload", async () => {
    const token = await createBotViaApi(owner, "grammy_poll_bot", "Grammy Poll");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const edits: string[] = [];
    bot.command("start", (ctx) =>
      ctx.reply(`Welcome, label ${ctx.match}`, {
        reply_markup: { inline_keyboard: [[{ text: "Yes", callback_data: "yes" }]] },
      }),
    );
    bot.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: `you said ${ctx.callbackQuery.data}` }));
    bot.on("edited_message:text", (ctx) => {
      edits.push(ctx.editedMessage.text);
    });
    bot.hears("photo please", (ctx) =>
      ctx.replyWithPhoto(new InputFile(PNG_1x1, "dot.png"), { caption: "<b>dot</b>", parse_mode: "HTML" }),
    );
    bot.hears("doc please", (ctx) =>
      ctx.replyWithDocument(new InputFile(new TextEncoder().encode("grammY notes"), "notes.txt")),
    );
    bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    const running = bot.start({ timeout: 2, drop_pending_updates: true });
    try {
      // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
      await waitForLongPoll(server.app, token);
      const cid = await openChat(person, "grammy_poll_bot", "promo-42");
      const welcome = await waitForMessage(person, cid, (m) => m.content === "Welcome, label promo-42");
      expect(welcome.sender.username).toBe("grammy_poll_bot");
      expect(welcome.replyMarkup).toEqual({ inline_keyboard: [[{ text: "Yes", callback_data: "yes" }]] });

      const sent = await person.post(`/api/social/messages/${cid}`, { content: "hello bot" });
      expect(sent.status).toBe(200);
      await waitForMessage(person, cid, (m) => m.content === "echo: hello bot");

      const press = await person.post(`/api/social/messages/${cid}/${welcome.id}/callback`, { data: "yes" });
      expect(press.status).toBe(200);
      expect(press.body.data.answer).toEqual({ text: "you said yes", showAlert: false, url: null });

      const edit = await person.patch(`/api/social/messages/${cid}/${sent.body.data.message.id}`, {
        content: "hello again",
      });
      expect(edit.status).toBe(200);
      await waitFor(() => edits.includes("hello again"), 5000, "edited_message");

      await person.post(`/api/social/messages/${cid}`, { content: "photo please" });
      const photo = await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "image");
      expect(photo.content).toBe("dot");
      expect(photo.entities).toEqual([{ type: "bold", offset: 0, length: 3 }]);
      // the test server listens on a random port, so the file is fetched by its path
      const file = await fetch(server.url + new URL(photo.media[0].url).pathname);
      expect(file.status).toBe(200);

      await person.post(`/api/social/messages/${cid}`, { content: "doc please" });
      const doc = await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "file");
      expect(doc.media[0].name).toBe("notes.txt");
      expect(await (await fetch(server.url + new URL(doc.media[0].url).pathname)).text()).toBe("grammY notes");
    } finally {
      await bot.stop();
      await running;
    }
  }, 20_000);

  test("webhook with secret via webhookCallback", async () => {
    const token = await createBotViaApi(owner, "grammy_hook_bot", "Grammy Hook");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    await bot.init();
    bot.on("message:text", (ctx) => ctx.reply(`hooked: ${ctx.message.text}`));
    const handle = webhookCallback(bot, "std/http", { secretToken: "s3cret_token" });
    const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handle(req) });
    try {
      await bot.api.setWebhook(`http://127.0.0.1:${receiver.port}/hook`, { secret_token: "s3cret_token" });
      const info = await bot.api.getWebhookInfo();
      expect(info.url).toBe(`http://127.0.0.1:${receiver.port}/hook`);
      expect(info.has_custom_certificate).toBe(false);
      await expect(bot.api.getUpdates()).rejects.toThrow(
        /Conflict: can't use getUpdates method while webhook is active/,
      );
      const cid = await openChat(person, "grammy_hook_bot");
      await person.post(`/api/social/messages/${cid}`, { content: "via webhook" });
      await waitForMessage(person, cid, (m) => m.content === "hooked: via webhook");
      expect((await history(person, cid)).length).toBe(2);
    } finally {
      receiver.stop(true);
    }
  }, 15_000);
  test("groups, media group, dice, poll and location through grammY's API", async () => {
    const token = await createBotViaApi(owner, "grammy_group_bot", "Grammy Group");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const memberships: string[] = [];
    const heard: string[] = [];
    bot.on("my_chat_member", (ctx) => {
      memberships.push(`${ctx.myChatMember.old_chat_member.status}->${ctx.myChatMember.new_chat_member.status}`);
    });
    bot.on("message:text", (ctx) => {
      heard.push(ctx.message.text);
    });
    const running = bot.start({ timeout: 1 });
    try {
      // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
      await waitForLongPoll(server.app, token);
      const g = await person.post("/api/social/groups", { title: "Grammy group", members: [] });
      const gid = g.body.data.conversationId;
      expect((await person.post(`/api/social/groups/${gid}/members`, { username: "grammy_group_bot" })).status).toBe(
        200,
      );
      await waitFor(() => memberships.length === 1, 5000, "my_chat_member on add");
      // privacy "all" (set by the owner): every group message reaches the bot
      expect((await owner.patch("/api/bots/grammy_group_bot", { privacy: "all" })).status).toBe(200);
      await person.post(`/api/social/messages/${gid}`, { content: "plain chatter" });
      await waitFor(() => heard.includes("plain chatter"), 5000, "group message with privacy all");

      const album = await bot.api.sendMediaGroup(-(await groupIdOf(gid)), [
        { type: "photo", media: new InputFile(PNG_1x1, "one.png"), caption: "pair" },
        { type: "photo", media: new InputFile(PNG_1x1, "two.png") },
      ]);
      expect(album.length).toBe(2);
      const groupIds = album.map((m) => (m as { media_group_id?: string }).media_group_id);
      expect(groupIds[0]).toBeDefined();
      expect(groupIds[0]).toBe(groupIds[1]);
      const target = album[0]!.chat.id;
      expect((await bot.api.sendDice(target, "🏀")).dice?.value).toBeLessThanOrEqual(5);
      expect(
        (await bot.api.sendPoll(target, "Lunch?", [{ text: "Pizza" }, { text: "Salad" }])).poll?.options.length,
      ).toBe(2);
      expect((await bot.api.sendLocation(target, 1.5, 2.5)).location).toEqual({ latitude: 1.5, longitude: 2.5 });
      const seen = await history(person, gid);
      expect(seen.filter((m) => m.media?.[0]?.type === "image").length).toBe(2);
      expect(seen.some((m) => m.poll?.question === "Lunch?")).toBe(true);

      expect((await person.delete(`/api/social/groups/${gid}/members/grammy_group_bot`)).status).toBe(200);
      await waitFor(() => memberships.length === 2, 5000, "my_chat_member on removal");
      expect(memberships).toEqual(["left->member", "member->kicked"]);
    } finally {
      await bot.stop();
      await running;
    }
  }, 20_000);
});
