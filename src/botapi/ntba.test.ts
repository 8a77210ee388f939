import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot, InputFile } from "node-telegram-bot-api";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botWorld, createBotViaApi, openChat, PNG_1x1, waitFor, waitForMessage } from "../testing/botapi";
import { botApiUserId } from "../domain/bots/ids";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;

beforeAll(async () => void ({ server, owner, person, personUser } = await botWorld()));
afterAll(() => server.stop());

describe("node-telegram-bot-api v2 with apiRoot", () => {
  test("commands, buttons, uploads, media group and group membership updates", async () => {
    const token = await createBotViaApi(owner, "ntba_bot", "NTBA");
    const bot = new Bot(token, { apiRoot: server.url });
    const memberships: any[] = [];
    bot.command("start", (ctx) =>
      ctx.reply(`hello from ntba ${ctx.match}`, {
        reply_markup: { inline_keyboard: [[{ text: "Tap", callback_data: "tap" }]] },
      }),
    );
    bot.on("callback_query", (ctx) =>
      ctx.answerCallbackQuery({ text: `tapped ${ctx.callbackQuery!.data}`, url: "https://example.com/game" }),
    );
    bot.on("my_chat_member", (ctx) => {
      memberships.push((ctx.update as { my_chat_member?: unknown }).my_chat_member);
    });
    bot.hears("album", (ctx) =>
      ctx.api.sendMediaGroup({
        chat_id: ctx.chat!.id,
        media: [
          { type: "photo", media: new InputFile(PNG_1x1, { filename: "a.png" }), caption: "two dots" },
          { type: "photo", media: new InputFile(PNG_1x1, { filename: "b.png" }) },
        ],
      }),
    );
    bot.hears("poll", (ctx) =>
      ctx.api.sendPoll({ chat_id: ctx.chat!.id, question: "Best?", options: [{ text: "A" }, { text: "B" }] }),
    );
    bot.hears("upload", (ctx) =>
      ctx.api.sendPhoto({ chat_id: ctx.chat!.id, photo: new InputFile(PNG_1x1, { filename: "c.png" }) }),
    );
    const polling = bot.startPolling(undefined, { timeout: 2 });
    try {
      const cid = await openChat(person, "ntba_bot", "x-1");
      const hello = await waitForMessage(person, cid, (m) => m.content === "hello from ntba x-1");
      const press = await person.post(`/api/social/messages/${cid}/${hello.id}/callback`, { data: "tap" });
      expect(press.body.data.answer).toEqual({ text: "tapped tap", showAlert: false, url: "https://example.com/game" });

      await person.post(`/api/social/messages/${cid}`, { content: "upload" });
      await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "image" && m.content === "");
      await person.post(`/api/social/messages/${cid}`, { content: "album" });
      const first = await waitForMessage(person, cid, (m) => m.content === "two dots");
      expect(first.media[0].type).toBe("image");
      await person.post(`/api/social/messages/${cid}`, { content: "poll" });
      const poll = await waitForMessage(person, cid, (m) => m.poll);
      expect(poll.poll.question).toBe("Best?");

      const g = await person.post("/api/social/groups", { title: "NTBA group", members: [] });
      const gid = g.body.data.conversationId;
      await person.post(`/api/social/groups/${gid}/members`, { username: "ntba_bot" });
      await waitFor(() => memberships.length === 1, 5000, "my_chat_member on add");
      expect(memberships[0]).toMatchObject({
        chat: { type: "group", title: "NTBA group" },
        from: { id: botApiUserId(personUser.id) },
        new_chat_member: { status: "member" },
      });
      const removed = await person.delete(`/api/social/groups/${gid}/members/ntba_bot`);
      expect(removed.status).toBe(200);
      await waitFor(() => memberships.length === 2, 5000, "my_chat_member on removal");
      expect(memberships[1]).toMatchObject({
        old_chat_member: { status: "member" },
        new_chat_member: { status: "kicked" },
      });
    } finally {
      bot.stop();
      await polling;
    }
  }, 20_000);

  test("API errors surface with the status and description", async () => {
    const token = await createBotViaApi(owner, "ntba_err_bot");
    const bot = new Bot(token, { apiRoot: server.url, maxRetries: 0 });
    await expect(bot.api.sendMessage({ chat_id: personUser.id, text: "" })).rejects.toThrow(/message text is empty/);
    await expect(bot.api.getChat({ chat_id: -424242 })).rejects.toThrow(/chat not found/);
  });
});
