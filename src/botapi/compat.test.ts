import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, history, openChat, PNG_1x1 } from "../testing/botapi";

/**
 * Incompatibilities found by running other projects' own integration tests (node-telegram-bot-api's,
 * python-telegram-bot's) against the instance, each pinned here.
 */

/** A 1×1 GIF. */
const GIF_1x1 = Uint8Array.from(Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"));

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let token: string;
let chatId: number;
let cid: string;
const call = (method: string, params: Record<string, unknown> = {}) => botCall(server.url, token, method, params);

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld({ "bot.allowPrivateWebhooks": true }));
  token = await createBotViaApi(owner, "compat_bot", "Compat");
  cid = await openChat(person, "compat_bot");
  chatId = botApiUserId(personUser.id);
});
afterAll(() => server.stop());

describe("compatibility details", () => {
  test("sendAnimation takes a GIF (the spec: GIF or silent video)", async () => {
    const form = new FormData();
    form.set("chat_id", String(chatId));
    form.set("animation", new File([GIF_1x1], "spin.gif", { type: "image/gif" }));
    const res = await fetch(`${server.url}/bot${token}/sendAnimation`, { method: "POST", body: form });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.result.animation).toMatchObject({ mime_type: "image/gif", width: 1, height: 1, file_name: "spin.gif" });
    expect(body.result.document.file_id).toBe(body.result.animation.file_id);
    expect(body.result.photo).toBeUndefined();
    // sending the same file again by its id works too
    const again = await call("sendAnimation", { chat_id: chatId, animation: body.result.animation.file_id });
    expect(again.body.result.animation.mime_type).toBe("image/gif");
    const seen = (await history(person, cid)).at(-1);
    expect(seen.media[0]).toMatchObject({ type: "image", mime: "image/gif" });
  });

  test("the first non-empty action in the compatible server's order decides; empty extras are ignored", async () => {
    const sent = await call("sendMessage", {
      chat_id: chatId,
      text: "pick",
      reply_markup: {
        inline_keyboard: [
          // what telebot.v3 sends for every callback button
          [{ text: "A", callback_data: "a", switch_inline_query_current_chat: "" }],
          [{ text: "B", url: "", callback_data: "b" }],
          [{ text: "Site", url: "https://example.com/", callback_data: "ignored" }],
          [{ text: "Web", web_app: { url: "https://example.com/app" }, copy_text: { text: "ignored" } }],
          [{ text: "Ask", switch_inline_query_current_chat: "" }],
        ],
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.body.result.reply_markup).toEqual({
      inline_keyboard: [
        [{ text: "A", callback_data: "a" }],
        [{ text: "B", callback_data: "b" }],
        [{ text: "Site", url: "https://example.com/" }],
        [{ text: "Web", web_app: { url: "https://example.com/app" } }],
        [{ text: "Ask", switch_inline_query_current_chat: "" }],
      ],
    });
    const empty = await call("sendMessage", {
      chat_id: chatId,
      text: "pick",
      reply_markup: { inline_keyboard: [[{ text: "x", url: "", callback_data: "" }]] },
    });
    expect(empty.body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    });
  });
  test("the same bytes uploaded twice are one file: one file_unique_id per content", async () => {
    const sendPhoto = async (bytes: Uint8Array, name: string) => {
      const form = new FormData();
      form.set("chat_id", String(chatId));
      form.set("photo", new File([bytes], name, { type: "image/gif" }));
      const res = await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: form });
      const body = (await res.json()) as any;
      expect(body.ok).toBe(true);
      return body.result.photo.at(-1).file_unique_id as string;
    };
    const first = await sendPhoto(GIF_1x1, "a.gif");
    expect(await sendPhoto(GIF_1x1, "b.gif")).toBe(first);
    expect(await sendPhoto(PNG_1x1, "c.png")).not.toBe(first);
  });

  test("sendVenue keeps foursquare_id/foursquare_type; sendAudio keeps its thumbnail; getChat has pinned_message", async () => {
    const venue = await call("sendVenue", {
      chat_id: chatId,
      latitude: 52.52,
      longitude: 13.405,
      title: "Tea house",
      address: "Main street 1",
      foursquare_id: "4b0588b4f964a52093a822e3",
      foursquare_type: "food/teahouse",
    });
    expect(venue.body.result.venue).toMatchObject({
      title: "Tea house",
      foursquare_id: "4b0588b4f964a52093a822e3",
      foursquare_type: "food/teahouse",
    });

    const form = new FormData();
    form.set("chat_id", String(chatId));
    form.set("title", "Song");
    form.set("audio", new File([new TextEncoder().encode("not really audio")], "song.mp3", { type: "audio/mpeg" }));
    form.set("thumbnail", new File([PNG_1x1], "cover.png", { type: "image/png" }));
    const audio = (await (
      await fetch(`${server.url}/bot${token}/sendAudio`, { method: "POST", body: form })
    ).json()) as any;
    expect(audio.ok).toBe(true);
    expect(audio.result.audio).toMatchObject({ title: "Song", thumbnail: { width: 1, height: 1 } });
    expect((await fetch(audio.result.audio.thumbnail.file_id)).headers.get("content-type")).toStartWith("image/");

    expect((await call("getChat", { chat_id: chatId })).body.result.pinned_message).toBeUndefined();
    expect(
      (await call("pinChatMessage", { chat_id: chatId, message_id: venue.body.result.message_id })).body.result,
    ).toBe(true);
    expect((await call("getChat", { chat_id: chatId })).body.result.pinned_message).toMatchObject({
      message_id: venue.body.result.message_id,
      venue: { title: "Tea house" },
    });
    await call("unpinAllChatMessages", { chat_id: chatId });
  });

  test("protect_content is kept: has_protected_content, and neither the person nor a bot may forward or copy it", async () => {
    const sent = await call("sendMessage", { chat_id: chatId, text: "for your eyes", protect_content: true });
    expect(sent.body.result.has_protected_content).toBe(true);
    const plain = await call("sendMessage", { chat_id: chatId, text: "anyone may share" });
    expect(plain.body.result.has_protected_content).toBeUndefined();
    const id = sent.body.result.message_id as number;
    const shown = (await history(person, cid)).find((m) => m.messageId === id);
    expect(shown.protectedContent).toBe(true);
    expect(
      (await history(person, cid)).find((m) => m.messageId === plain.body.result.message_id).protectedContent,
    ).toBeUndefined();

    const forward = await person.post(`/api/social/messages/${cid}/${shown.id}/forward`, { toConversationId: cid });
    expect(forward.status).toBe(403);
    expect(forward.body.error.message).toContain("protected");
    expect(
      (await call("forwardMessage", { chat_id: chatId, from_chat_id: chatId, message_id: id })).body.description,
    ).toBe("Bad Request: message can't be forwarded");
    expect(
      (await call("copyMessage", { chat_id: chatId, from_chat_id: chatId, message_id: id })).body.description,
    ).toBe("Bad Request: message can't be copied");
    // still a text message the bot may edit
    const edited = await call("editMessageText", { chat_id: chatId, message_id: id, text: "still for your eyes" });
    expect(edited.body.result).toMatchObject({ text: "still for your eyes", has_protected_content: true });
    const photo = new FormData();
    photo.set("chat_id", String(chatId));
    photo.set("protect_content", "true");
    photo.set("photo", new File([PNG_1x1], "p.png", { type: "image/png" }));
    const media = (await (
      await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: photo })
    ).json()) as any;
    expect(media.result.has_protected_content).toBe(true);
  });

  test("setWebhook without a scheme assumes https://", async () => {
    expect((await call("setWebhook", { url: "127.0.0.1:9/hook" })).body.result).toBe(true);
    expect((await call("getWebhookInfo")).body.result.url).toBe("https://127.0.0.1:9/hook");
    expect((await call("deleteWebhook")).body.result).toBe(true);
  });

  test("descriptions and names per language with the default as fallback; commands per language and scope, each list its own", async () => {
    expect((await call("setMyDescription", { description: "Hello" })).body.result).toBe(true);
    expect((await call("setMyDescription", { description: "Hallo", language_code: "de" })).body.result).toBe(true);
    expect((await call("getMyDescription")).body.result).toEqual({ description: "Hello" });
    expect((await call("getMyDescription", { language_code: "de" })).body.result).toEqual({ description: "Hallo" });
    expect((await call("getMyDescription", { language_code: "fr" })).body.result).toEqual({ description: "Hello" });
    expect((await call("setMyShortDescription", { short_description: "Kurz", language_code: "de" })).body.result).toBe(
      true,
    );
    expect((await call("getMyShortDescription")).body.result).toEqual({ short_description: "" });
    expect((await call("getMyShortDescription", { language_code: "de" })).body.result).toEqual({
      short_description: "Kurz",
    });
    // "" removes the language's own text
    expect((await call("setMyDescription", { description: "", language_code: "de" })).body.result).toBe(true);
    expect((await call("getMyDescription", { language_code: "de" })).body.result).toEqual({ description: "Hello" });

    expect((await call("setMyName", { name: "Kompat", language_code: "de" })).body.result).toBe(true);
    expect((await call("getMyName", { language_code: "de" })).body.result).toEqual({ name: "Kompat" });
    expect((await call("getMyName")).body.result).toEqual({ name: "Compat" });
    expect((await call("setMyName", { name: "Compat Two" })).body.result).toBe(true);
    expect((await call("getMe")).body.result.first_name).toBe("Compat Two");

    const list = (c: string) => [{ command: c, description: `does ${c}` }];
    expect((await call("setMyCommands", { commands: list("all") })).body.result).toBe(true);
    expect(
      (await call("setMyCommands", { commands: list("private"), scope: { type: "all_private_chats" } })).body.result,
    ).toBe(true);
    expect((await call("setMyCommands", { commands: list("deutsch"), language_code: "de" })).body.result).toBe(true);
    expect(
      (await call("setMyCommands", { commands: list("one"), scope: { type: "chat", chat_id: chatId } })).body.result,
    ).toBe(true);
    expect((await call("getMyCommands")).body.result).toEqual(list("all"));
    expect((await call("getMyCommands", { scope: { type: "all_private_chats" } })).body.result).toEqual(
      list("private"),
    );
    // a scope and language without a list of their own answer [], as the compatible API does
    expect(
      (await call("getMyCommands", { scope: { type: "all_private_chats" }, language_code: "de" })).body.result,
    ).toEqual([]);
    expect(
      (await call("getMyCommands", { scope: { type: "all_group_chats" }, language_code: "de" })).body.result,
    ).toEqual([]);
    expect((await call("getMyCommands", { language_code: "de" })).body.result).toEqual(list("deutsch"));
    expect((await call("getMyCommands", { language_code: "fr" })).body.result).toEqual([]);
    expect((await call("getMyCommands", { scope: { type: "chat", chat_id: String(chatId) } })).body.result).toEqual(
      list("one"),
    );
    expect((await call("deleteMyCommands", { scope: { type: "all_private_chats" } })).body.result).toBe(true);
    expect((await call("getMyCommands", { scope: { type: "all_private_chats" } })).body.result).toEqual([]);
    // the person's card shows what their chat with the bot shows: the list of that chat's scope first
    expect((await person.get("/api/social/bots/compat_bot")).body.data.bot.commands).toEqual(list("one"));
    expect((await call("deleteMyCommands", { scope: { type: "chat", chat_id: chatId } })).body.result).toBe(true);
    expect((await person.get("/api/social/bots/compat_bot")).body.data.bot.commands).toEqual(list("all"));

    for (const [params, description] of [
      [{ language_code: "deutsch" }, "Bad Request: invalid language code specified"],
      [{ scope: { type: "everywhere" } }, "Bad Request: can't parse BotCommandScope: unsupported type specified"],
      [{ scope: { type: "chat" } }, "Bad Request: can't parse BotCommandScope: chat_id is invalid"],
    ] as const) {
      expect((await call("getMyCommands", params)).body).toEqual({ ok: false, error_code: 400, description });
    }
  });

  test("poll questions and options take markup (question_parse_mode, InputPollOption text_parse_mode); quiz explanations too", async () => {
    const r = await call("sendPoll", {
      chat_id: chatId,
      question: "<b>Best</b> tea?",
      question_parse_mode: "HTML",
      options: [{ text: "*Green*", text_parse_mode: "MarkdownV2" }, "Black", { text: "Oolong" }],
      type: "quiz",
      correct_option_id: 0,
      explanation: "_fresh_",
      explanation_parse_mode: "MarkdownV2",
    });
    expect(r.status).toBe(200);
    expect(r.body.result.poll).toMatchObject({
      question: "Best tea?",
      question_entities: [{ type: "bold", offset: 0, length: 4 }],
      options: [
        { text: "Green", text_entities: [{ type: "bold", offset: 0, length: 5 }], voter_count: 0 },
        { text: "Black", voter_count: 0 },
        { text: "Oolong", voter_count: 0 },
      ],
      correct_option_id: 0,
      explanation: "fresh",
      explanation_entities: [{ type: "italic", offset: 0, length: 5 }],
    });
    // people see the text, not the markup
    const seen = (await history(person, cid)).at(-1);
    expect(seen.poll.question).toBe("Best tea?");
    expect(seen.poll.options.map((o: any) => o.text)).toEqual(["Green", "Black", "Oolong"]);
  });
});
