import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import { botApiUserId } from "../domain/bots/ids";
import {
  botCall,
  botWorld,
  createBotViaApi,
  history,
  openChat,
  waitForMessage,
  type BotWorld,
} from "../testing/botapi";

/*
 * A bot's link previews: link_preview_options (and the older disable_web_page_preview) on
 * sendMessage and editMessageText, answered back in the Message as the compatible API does;
 * is_disabled leaves the people reading in the app without the card.
 */

let world: BotWorld;
let pages: ReturnType<typeof Bun.serve>;
// the bot's token, the person's chat with it (Bot API id and Client API id)
const bot = { token: "", chatId: 0, cid: "" };
const call = (method: string, params: Record<string, unknown> = {}) =>
  botCall(world.server.url, bot.token, method, params);
const page = (path: string) => `http://127.0.0.1:${pages.port}${path}`;

beforeAll(async () => {
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new Response(
        `<html><head><title>Page ${new URL(req.url).pathname}</title><meta name="description" content="About it"></head></html>`,
        { headers: { "content-type": "text/html" } },
      ),
  });
  world = await botWorld({ "links.allowPrivatePreviews": true });
  bot.token = await createBotViaApi(world.owner, "preview_bot", "Previews");
  bot.cid = await openChat(world.person, "preview_bot");
  bot.chatId = botApiUserId(world.personUser.id);
});
afterAll(async () => {
  await world?.server.stop();
  pages.stop(true);
});

describe("link previews in the Bot API", () => {
  test("by default people see the card and the Message carries no link_preview_options", async () => {
    const sent = await call("sendMessage", { chat_id: bot.chatId, text: `read ${page("/a")}` });
    expect(sent.status).toBe(200);
    expect(sent.body.result.link_preview_options).toBeUndefined();
    const shown = await waitForMessage(world.person, bot.cid, (m) => m.content.includes("/a") && m.linkPreview);
    expect(shown.linkPreview).toEqual({
      url: page("/a"),
      title: "Page /a",
      description: "About it",
      imageUrl: null,
      siteName: null,
    });
  });

  test("is_disabled: no card for people; the options are answered back", async () => {
    const options = { is_disabled: true, prefer_small_media: true };
    const sent = await call("sendMessage", {
      chat_id: bot.chatId,
      text: `quiet ${page("/b")}`,
      link_preview_options: options,
    });
    expect(sent.status).toBe(200);
    expect(sent.body.result.link_preview_options).toEqual(options);
    const legacy = await call("sendMessage", {
      chat_id: bot.chatId,
      text: `old ${page("/c")}`,
      disable_web_page_preview: true,
    });
    expect(legacy.body.result.link_preview_options).toEqual({ is_disabled: true });
    // a preview made meanwhile would have been a message edit: the last messages still have none
    await call("sendMessage", { chat_id: bot.chatId, text: `marker ${page("/d")}` });
    await waitForMessage(world.person, bot.cid, (m) => m.content.startsWith("marker") && m.linkPreview);
    const messages = await history(world.person, bot.cid);
    for (const text of ["quiet", "old"])
      expect(messages.find((m) => m.content.startsWith(text)).linkPreview).toBeUndefined();
  });

  test("url previews another link than the text's; editMessageText changes the choice", async () => {
    const sent = await call("sendMessage", {
      chat_id: bot.chatId,
      text: `two links ${page("/first")} and more`,
      link_preview_options: { url: page("/chosen") },
    });
    expect(sent.status).toBe(200);
    const shown = await waitForMessage(
      world.person,
      bot.cid,
      (m) => m.content.startsWith("two links") && m.linkPreview,
    );
    expect(shown.linkPreview.url).toBe(page("/chosen"));
    const edited = await call("editMessageText", {
      chat_id: bot.chatId,
      message_id: sent.body.result.message_id,
      text: `two links ${page("/first")} and more`,
      link_preview_options: { is_disabled: true },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.result.link_preview_options).toEqual({ is_disabled: true });
    const after = (await history(world.person, bot.cid)).find((m) => m.content.startsWith("two links"));
    expect(after.linkPreview).toBeUndefined();
  });

  test("malformed options are refused in the Bot API's words", async () => {
    const bad = await call("sendMessage", {
      chat_id: bot.chatId,
      text: "x",
      link_preview_options: { is_disabled: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.ok).toBe(false);
  });

  test("grammY's sendMessage with link_preview_options works unchanged", async () => {
    const grammy = new Bot(bot.token, { client: { apiRoot: world.server.url } });
    const message = await grammy.api.sendMessage(bot.chatId, `grammy ${page("/g")}`, {
      link_preview_options: { is_disabled: true },
    });
    expect(message.link_preview_options).toEqual({ is_disabled: true });
    const plain = await grammy.api.sendMessage(bot.chatId, `grammy card ${page("/h")}`);
    expect(plain.link_preview_options).toBeUndefined();
    await waitForMessage(world.person, bot.cid, (m) => m.content.startsWith("grammy card") && m.linkPreview);
  });
});
