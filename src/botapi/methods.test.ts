import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botWorld, botCall, createBotViaApi, history, openChat, PNG_1x1, waitForMessage } from "../testing/botapi";
import { botApiUserId } from "../domain/bots/ids";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let stranger: UserRow;
let token: string;
let otherToken: string;
let cid: string;
let chatId: number;
let fileServer: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld({ "bot.allowPrivateWebhooks": true }));
  stranger = (await signedInClient(server)).user;
  token = await createBotViaApi(owner, "methods_bot", "Methods");
  otherToken = await createBotViaApi(owner, "other_methods_bot", "Other");
  cid = await openChat(person, "methods_bot");
  chatId = botApiUserId(personUser.id);
  fileServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/dot.png") return new Response(PNG_1x1, { headers: { "content-type": "image/png" } });
      if (path === "/page.html")
        return new Response("<!doctype html><title>a page</title>", { headers: { "content-type": "text/html" } });
      if (path === "/big.bin")
        return new Response(new Uint8Array(11 * 1024 * 1024), { headers: { "content-type": "image/png" } });
      return new Response("nope", { status: 404 });
    },
  });
});
afterAll(async () => {
  fileServer.stop(true);
  await server.stop();
});

const call = (method: string, params: Record<string, unknown> = {}, t = token) =>
  botCall(server.url, t, method, params);
const form = async (method: string, fd: FormData) => {
  const res = await fetch(`${server.url}/bot${token}/${method}`, { method: "POST", body: fd });
  return { status: res.status, body: (await res.json()) as any };
};
const bad = async (method: string, params: Record<string, unknown>, status: number, description: string) => {
  const res = await call(method, params);
  expect({ method, status: res.status, body: res.body }).toEqual({
    method,
    status,
    body: { ok: false, error_code: status, description },
  });
};

describe("sending", () => {
  test("sendMessage with HTML, buttons and a reply; the person sees it", async () => {
    const first = await call("sendMessage", { chat_id: chatId, text: "plain" });
    expect(first.status).toBe(200);
    const r = await call("sendMessage", {
      chat_id: chatId,
      text: "<b>Hi</b> there",
      parse_mode: "HTML",
      reply_parameters: { message_id: first.body.result.message_id },
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Go", callback_data: "go" },
            { text: "Site", url: "https://example.com" },
          ],
        ],
      },
    });
    expect(r.status).toBe(200);
    const m = r.body.result;
    expect(m).toMatchObject({
      text: "Hi there",
      entities: [{ type: "bold", offset: 0, length: 2 }],
      chat: { id: chatId, type: "private", username: personUser.username },
      from: { username: "methods_bot", is_bot: true },
      reply_to_message: { message_id: first.body.result.message_id, text: "plain" },
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Go", callback_data: "go" },
            { text: "Site", url: "https://example.com" },
          ],
        ],
      },
    });
    expect(typeof m.date).toBe("number");
    const seen = await waitForMessage(person, cid, (x) => x.messageId === m.message_id);
    expect(seen.content).toBe("Hi there");
    expect(seen.entities).toEqual([{ type: "bold", offset: 0, length: 2 }]);
  });

  test("form-encoded calls as python-telegram-bot sends them (strings, JSON-text composites)", async () => {
    const body = new URLSearchParams({
      chat_id: String(chatId),
      text: "*ptb*",
      parse_mode: "MarkdownV2",
      disable_notification: "true",
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: "Go", callback_data: "go" }]] }),
    });
    const res = await fetch(`${server.url}/bot${token}/sendMessage`, { method: "POST", body });
    const r = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(r.result).toMatchObject({
      text: "ptb",
      entities: [{ type: "bold", offset: 0, length: 3 }],
      reply_markup: { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] },
    });
  });

  test("chat_id as @username opens the private chat", async () => {
    const r = await call("sendMessage", { chat_id: `@${stranger.username}`, text: "hello stranger" });
    expect(r.status).toBe(200);
    expect(r.body.result.chat).toMatchObject({ id: botApiUserId(stranger.id), type: "private" });
  });

  test("a person who blocked the bot cannot be messaged: 403", async () => {
    const { client, user } = await signedInClient(server);
    await openChat(client, "methods_bot");
    expect((await call("sendMessage", { chat_id: user.id, text: "before" })).status).toBe(200);
    expect((await client.post("/api/social/users/methods_bot/block")).body.data).toEqual({ blocked: true });
    await bad("sendMessage", { chat_id: user.id, text: "after" }, 403, "Forbidden: bot was blocked by the user");
    expect((await client.post("/api/social/users/methods_bot/block")).body.data).toEqual({ blocked: false });
    expect((await call("sendMessage", { chat_id: user.id, text: "again" })).status).toBe(200);
  });

  test("by id, a disabled or deleted account, or a bot's, is no chat to send to (even with a chat open)", async () => {
    const { client, user } = await signedInClient(server);
    await openChat(client, "methods_bot");
    expect((await call("sendMessage", { chat_id: user.id, text: "open" })).status).toBe(200);
    const users = server.app.db.updateTable("users").where("id", "=", user.id);
    await users.set({ disabled_at: server.clock.now() }).execute();
    await bad("sendMessage", { chat_id: user.id, text: "disabled" }, 400, "Bad Request: chat not found");
    await users.set({ disabled_at: null, deleted_at: server.clock.now() }).execute();
    await bad("sendMessage", { chat_id: user.id, text: "deleted" }, 400, "Bad Request: chat not found");
    const otherBot = (await botCall(server.url, otherToken, "getMe")).body.result.id as number;
    await bad("sendMessage", { chat_id: otherBot, text: "hi" }, 403, "Forbidden: bot can't send messages to bots");
  });

  test("a bot no longer a member of a person's private chat cannot send there, and nothing is stored", async () => {
    const { client, user } = await signedInClient(server);
    const cid = await openChat(client, "methods_bot");
    expect((await call("sendMessage", { chat_id: user.id, text: "member" })).status).toBe(200);
    await server.app.db
      .updateTable("conversation_members")
      .set({ role: "left" })
      .where("user_id", "in", (eb) => eb.selectFrom("users").select("id").where("username", "=", "methods_bot"))
      .where("conversation_id", "in", (eb) => eb.selectFrom("conversations").select("id").where("cuid", "=", cid))
      .execute();
    const res = await call("sendMessage", { chat_id: user.id, text: "gone" });
    expect(res.body).toMatchObject({ ok: false, error_code: 400, description: "Bad Request: chat not found" });
    expect((await history(client, cid)).map((m) => m.content)).toEqual(["member"]);
  });

  test("sendMessage bad input", async () => {
    await bad("sendMessage", { chat_id: chatId }, 400, "Bad Request: message text is empty");
    await bad("sendMessage", { chat_id: chatId, text: "   " }, 400, "Bad Request: message text is empty");
    await bad("sendMessage", { chat_id: chatId, text: "x".repeat(4097) }, 400, "Bad Request: message is too long");
    await bad("sendMessage", { text: "hi" }, 400, "Bad Request: chat_id is empty");
    await bad("sendMessage", { chat_id: 99999999, text: "hi" }, 400, "Bad Request: chat not found");
    await bad("sendMessage", { chat_id: -99999999, text: "hi" }, 400, "Bad Request: chat not found");
    await bad("sendMessage", { chat_id: "@nobody_here", text: "hi" }, 400, "Bad Request: chat not found");
    await bad("sendMessage", { chat_id: { x: 1 }, text: "hi" }, 400, "Bad Request: chat not found");
    await bad(
      "sendMessage",
      { chat_id: "@other_methods_bot", text: "hi" },
      403,
      "Forbidden: bot can't send messages to bots",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "<blink>x</blink>", parse_mode: "HTML" },
      400,
      'Bad Request: can\'t parse entities: Unsupported start tag "blink" at byte offset 0',
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", reply_parameters: { message_id: 999999 } },
      400,
      "Bad Request: message to be replied not found",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", reply_markup: "{oops" },
      400,
      "Bad Request: can't parse reply_markup JSON object",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", reply_markup: { inline_keyboard: [[{ text: "x" }]] } },
      400,
      "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    );
    await bad(
      "sendMessage",
      {
        chat_id: chatId,
        text: "hi",
        reply_markup: { inline_keyboard: [[{ text: "x", callback_data: "d".repeat(65) }]] },
      },
      400,
      "Bad Request: BUTTON_DATA_INVALID",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", reply_markup: { inline_keyboard: [[{ text: "x", url: "javascript:alert(1)" }]] } },
      400,
      "Bad Request: BUTTON_URL_INVALID",
    );
    await bad(
      "sendMessage",
      {
        chat_id: chatId,
        text: "hi",
        reply_markup: {
          inline_keyboard: [Array.from({ length: 9 }, (_, i) => ({ text: `b${i}`, callback_data: `${i}` }))],
        },
      },
      400,
      "Bad Request: too many buttons in a row of inline_keyboard (maximum 8)",
    );
    await bad(
      "sendMessage",
      {
        chat_id: chatId,
        text: "hi",
        reply_markup: { inline_keyboard: [[{ text: "x".repeat(129), callback_data: "a" }]] },
      },
      400,
      "Bad Request: BUTTON_TEXT_TOO_LONG",
    );
    await bad(
      "sendMessage",
      {
        chat_id: chatId,
        text: "hi",
        reply_markup: { inline_keyboard: [[{ text: "x", web_app: { url: "http://example.com" } }]] },
      },
      400,
      "Bad Request: BUTTON_URL_INVALID: web_app url must be an https URL",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", reply_markup: { inline_keyboard: [[{ text: "x", pay: true }]] } },
      400,
      "Bad Request: can't parse inline keyboard button: pay buttons are only allowed in invoices",
    );
    await bad(
      "sendMessage",
      { chat_id: chatId, text: "hi", disable_notification: "maybe" },
      400,
      "Bad Request: disable_notification must be a Boolean",
    );
  });

  test("files: part named after the field, attach://, own file URL reused, https URL fetched", async () => {
    const fd = new FormData();
    fd.set("chat_id", String(chatId));
    fd.set("photo", new File([PNG_1x1], "a.png", { type: "image/png" }));
    fd.set("caption", "by part");
    const byPart = await form("sendPhoto", fd);
    expect(byPart.status).toBe(200);
    const sizes = byPart.body.result.photo as any[];
    const url = sizes[sizes.length - 1].file_id as string;
    expect(byPart.body.result.caption).toBe("by part");
    expect(sizes[sizes.length - 1]).toMatchObject({
      width: 1,
      height: 1,
      file_unique_id: url,
      file_size: expect.any(Number),
    });

    const fd2 = new FormData();
    fd2.set("chat_id", String(chatId));
    fd2.set("document", "attach://file0");
    fd2.set("file_name", "report.pdf");
    fd2.set("file0", new File([new TextEncoder().encode("%PDF-1.4\n%test\n")], "x.pdf", { type: "application/pdf" }));
    const byAttach = await form("sendDocument", fd2);
    expect(byAttach.status).toBe(200);
    expect(byAttach.body.result.document).toMatchObject({ file_name: "report.pdf", mime_type: "application/pdf" });

    const reused = await call("sendPhoto", { chat_id: chatId, photo: url });
    expect(reused.status).toBe(200);
    expect(reused.body.result.photo.at(-1).file_id).toBe(url);

    const fetched = await call("sendPhoto", {
      chat_id: chatId,
      photo: `http://127.0.0.1:${fileServer.port}/dot.png`,
      has_spoiler: true,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body.result.has_media_spoiler).toBe(true);
    // the URL answers the same bytes as the part above: the same file, as one content has one file_unique_id
    expect(fetched.body.result.photo.at(-1).file_unique_id).toBe(url);
    const seen = await waitForMessage(person, cid, (m) => m.messageId === fetched.body.result.message_id);
    expect(seen.media[0].type).toBe("image");
  });

  test("every file method: its Bot API object, and 'no file' when it is missing", async () => {
    // minimal containers: the type is decided from the bytes
    const mp4 = new Uint8Array([
      0,
      0,
      0,
      0x18,
      ...new TextEncoder().encode("ftypmp42"),
      0,
      0,
      0,
      0,
      ...new TextEncoder().encode("mp42isom"),
      ...new Uint8Array(64),
    ]);
    const ogg = new Uint8Array([...new TextEncoder().encode("OggS"), 0, 2, ...new Uint8Array(64)]);
    const cases: Array<[string, string, Uint8Array, string, (r: any) => void]> = [
      [
        "sendVideo",
        "video",
        mp4,
        "v.mp4",
        (r) => expect(r.video).toMatchObject({ file_id: expect.stringContaining("/files/") }),
      ],
      ["sendAnimation", "animation", mp4, "a.mp4", (r) => expect(r.animation.file_id).toBe(r.document.file_id)],
      ["sendVideoNote", "video_note", mp4, "n.mp4", (r) => expect(typeof r.video_note.file_id).toBe("string")],
      ["sendVoice", "voice", ogg, "v.ogg", (r) => expect(r.voice.mime_type).toBe("audio/ogg")],
      ["sendAudio", "audio", ogg, "song.ogg", (r) => expect(r.audio.file_name).toBe("song.ogg")],
      [
        "sendSticker",
        "sticker",
        PNG_1x1,
        "s.png",
        (r) => expect(r.sticker).toMatchObject({ width: 1, height: 1, type: "regular" }),
      ],
    ];
    for (const [method, field, bytes, name, check] of cases) {
      const fd = new FormData();
      fd.set("chat_id", String(chatId));
      fd.set(field, new File([bytes as Uint8Array<ArrayBuffer>], name));
      const r = await form(method, fd);
      expect({ method, status: r.status }).toEqual({ method, status: 200 });
      check(r.body.result);
      await bad(method, { chat_id: chatId }, 400, `Bad Request: there is no ${field} in the request`);
    }
    const seen = await history(person, cid);
    expect(seen.some((m) => m.media?.[0]?.type === "video" && m.media[0].name === "circle")).toBe(true);
    expect(seen.some((m) => m.media?.[0]?.type === "sticker")).toBe(true);
  });

  test("file bad input", async () => {
    await bad("sendPhoto", { chat_id: chatId }, 400, "Bad Request: there is no photo in the request");
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: "AgACAgIAAxkBAAIB" },
      400,
      "Bad Request: wrong file identifier/HTTP URL specified",
    );
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: "attach://missing" },
      400,
      "Bad Request: file attach://missing not found in the request",
    );
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: `http://127.0.0.1:${fileServer.port}/nothing.png` },
      400,
      "Bad Request: failed to get HTTP URL content",
    );
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: `http://127.0.0.1:${fileServer.port}/page.html` },
      400,
      "Bad Request: wrong type of the web page content",
    );
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: `http://127.0.0.1:${fileServer.port}/big.bin` },
      400,
      "Bad Request: failed to get HTTP URL content",
    );
    await bad(
      "sendPhoto",
      { chat_id: chatId, photo: `http://127.0.0.1:${fileServer.port}/dot.png`, caption: "c".repeat(1025) },
      400,
      "Bad Request: message caption is too long",
    );
    const fd = new FormData();
    fd.set("chat_id", String(chatId));
    fd.set("photo", new File([new TextEncoder().encode("just text, not an image")], "a.png", { type: "image/png" }));
    const notImage = await form("sendPhoto", fd);
    expect(notImage.status).toBe(400);
    expect(notImage.body.description).toStartWith("Bad Request: wrong file for photo:");
    const fd2 = new FormData();
    fd2.set("chat_id", String(chatId));
    fd2.set("voice", new File([PNG_1x1], "v.ogg"));
    expect((await form("sendVoice", fd2)).status).toBe(400);
  });

  test("sendMediaGroup: one message per item, shared media_group_id, caption on the first", async () => {
    const fd = new FormData();
    fd.set("chat_id", String(chatId));
    fd.set(
      "media",
      JSON.stringify([
        { type: "photo", media: "attach://a", caption: "<i>album</i>", parse_mode: "HTML" },
        { type: "photo", media: "attach://b" },
      ]),
    );
    fd.set("a", new File([PNG_1x1], "a.png"));
    fd.set("b", new File([PNG_1x1], "b.png"));
    const r = await form("sendMediaGroup", fd);
    expect(r.status).toBe(200);
    expect(r.body.result.length).toBe(2);
    expect(r.body.result[0].caption).toBe("album");
    expect(r.body.result[0].caption_entities).toEqual([{ type: "italic", offset: 0, length: 5 }]);
    expect(r.body.result[0].media_group_id).toBe(r.body.result[1].media_group_id);
    expect(r.body.result[1].message_id).toBe(r.body.result[0].message_id + 1);
    await bad(
      "sendMediaGroup",
      { chat_id: chatId, media: [{ type: "photo", media: "x" }] },
      400,
      "Bad Request: media must include 2-10 items",
    );
    await bad(
      "sendMediaGroup",
      {
        chat_id: chatId,
        media: [
          { type: "sticker", media: "x" },
          { type: "photo", media: "y" },
        ],
      },
      400,
      "Bad Request: media[0]: type must be one of photo, video, document, audio",
    );
    await bad(
      "sendMediaGroup",
      {
        chat_id: chatId,
        media: [
          { type: "document", media: "x" },
          { type: "photo", media: "y" },
        ],
      },
      400,
      "Bad Request: documents and audio can't be mixed with other media types in a media group",
    );
    await bad("sendMediaGroup", { chat_id: chatId }, 400, "Bad Request: media is empty");
  });

  test("location, venue, poll, dice, chat action", async () => {
    const loc = await call("sendLocation", { chat_id: chatId, latitude: 52.52, longitude: 13.405 });
    expect(loc.body.result.location).toEqual({ latitude: 52.52, longitude: 13.405 });
    const venue = await call("sendVenue", {
      chat_id: chatId,
      latitude: "48.85",
      longitude: "2.35",
      title: "Louvre",
      address: "Paris",
    });
    expect(venue.body.result.venue).toEqual({
      location: { latitude: 48.85, longitude: 2.35 },
      title: "Louvre",
      address: "Paris",
    });
    expect(venue.body.result.location).toEqual({ latitude: 48.85, longitude: 2.35 });
    const poll = await call("sendPoll", {
      chat_id: chatId,
      question: "Tea?",
      options: ["Yes", { text: "No" }],
      is_anonymous: false,
    });
    expect(poll.body.result.poll).toMatchObject({
      question: "Tea?",
      options: [
        { text: "Yes", voter_count: 0 },
        { text: "No", voter_count: 0 },
      ],
      is_anonymous: false,
      type: "regular",
      total_voter_count: 0,
    });
    const quiz = await call("sendPoll", {
      chat_id: chatId,
      question: "2+2?",
      options: JSON.stringify(["3", "4"]),
      type: "quiz",
      correct_option_id: 1,
    });
    expect(quiz.body.result.poll).toMatchObject({ type: "quiz", correct_option_id: 1 });
    for (const [emoji, max] of [
      ["🎲", 6],
      ["🎯", 6],
      ["🎳", 6],
      ["🏀", 5],
      ["⚽", 5],
      ["🎰", 64],
    ] as const) {
      for (let i = 0; i < 5; i++) {
        const dice = await call("sendDice", { chat_id: chatId, emoji });
        expect(dice.body.result.dice.emoji).toBe(emoji);
        expect(dice.body.result.dice.value).toBeGreaterThanOrEqual(1);
        expect(dice.body.result.dice.value).toBeLessThanOrEqual(max);
      }
    }
    expect((await call("sendDice", { chat_id: chatId })).body.result.dice.emoji).toBe("🎲");
    expect((await call("sendChatAction", { chat_id: chatId, action: "typing" })).body).toEqual({
      ok: true,
      result: true,
    });
    const seen = await history(person, cid);
    expect(seen.some((m) => m.dice?.emoji === "🎰")).toBe(true);
  });

  test("location, venue, poll, dice bad input", async () => {
    await bad(
      "sendLocation",
      { chat_id: chatId, latitude: 91, longitude: 0 },
      400,
      "Bad Request: latitude must be between -90 and 90",
    );
    await bad(
      "sendLocation",
      { chat_id: chatId, latitude: 0, longitude: -181 },
      400,
      "Bad Request: longitude must be between -180 and 180",
    );
    await bad("sendLocation", { chat_id: chatId, longitude: 0 }, 400, "Bad Request: latitude is empty");
    await bad(
      "sendLocation",
      { chat_id: chatId, latitude: "north", longitude: 0 },
      400,
      "Bad Request: latitude must be a Float",
    );
    await bad("sendVenue", { chat_id: chatId, latitude: 1, longitude: 1 }, 400, "Bad Request: venue title is empty");
    await bad(
      "sendVenue",
      { chat_id: chatId, latitude: 1, longitude: 1, title: "t".repeat(121) },
      400,
      "Bad Request: title is too long (maximum 120)",
    );
    await bad(
      "sendVenue",
      { chat_id: chatId, latitude: 1, longitude: 1, title: "t", address: "a".repeat(201) },
      400,
      "Bad Request: address is too long (maximum 200)",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, options: ["a", "b"] },
      400,
      "Bad Request: poll question must be non-empty",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q".repeat(301), options: ["a", "b"] },
      400,
      "Bad Request: question is too long (maximum 300)",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: ["a"] },
      400,
      "Bad Request: poll must have at least 2 option",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: Array.from({ length: 13 }, (_, i) => `o${i}`) },
      400,
      "Bad Request: poll can't have more than 12 options",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: ["a", "b".repeat(101)] },
      400,
      "Bad Request: poll options length must not exceed 100",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: ["a", ""] },
      400,
      "Bad Request: poll options must be non-empty",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: ["a", "b"], type: "quiz", correct_option_id: 5 },
      400,
      "Bad Request: wrong correct option id specified",
    );
    await bad(
      "sendPoll",
      { chat_id: chatId, question: "q", options: ["a", "b"], type: "survey" },
      400,
      "Bad Request: poll type must be regular or quiz",
    );
    await bad("sendDice", { chat_id: chatId, emoji: "🍕" }, 400, "Bad Request: emoji must be one of 🎲 🎯 🎳 🏀 ⚽ 🎰");
    await bad("sendChatAction", { chat_id: 424242424 }, 400, "Bad Request: chat not found");
    await bad(
      "sendChatAction",
      { chat_id: chatId, action: { kind: "typing" } },
      400,
      "Bad Request: action must be a String",
    );
    expect(
      (await call("sendChatAction", { chat_id: chatId, action: "record_video_note_in_the_rain" })).body.result,
    ).toBe(true);
  });

  test("forwardMessage and copyMessage", async () => {
    const sent = await person.post(`/api/social/messages/${cid}`, { content: "forward me" });
    const seq = sent.body.data.message.messageId;
    const fwd = await call("forwardMessage", {
      chat_id: `@${stranger.username}`,
      from_chat_id: chatId,
      message_id: seq,
    });
    expect(fwd.status).toBe(200);
    expect(fwd.body.result).toMatchObject({
      text: "forward me",
      forward_origin: { type: "user", sender_user: { id: chatId } },
      forward_from: { id: chatId },
    });
    const copy = await call("copyMessage", { chat_id: chatId, message_id: seq });
    expect(copy.status).toBe(200);
    expect(Object.keys(copy.body.result)).toEqual(["message_id"]);
    const copied = await waitForMessage(person, cid, (m) => m.messageId === copy.body.result.message_id);
    expect(copied.content).toBe("forward me");
    expect(copied.sender.username).toBe("methods_bot");
    expect(copied.forwardedFrom).toBeNull();
    await bad(
      "forwardMessage",
      { chat_id: chatId, message_id: 999999 },
      400,
      "Bad Request: message to forward not found",
    );
    await bad("forwardMessage", { chat_id: chatId }, 400, "Bad Request: message_id is empty");
    await bad("copyMessage", { chat_id: chatId, message_id: 999999 }, 400, "Bad Request: message to copy not found");
    await bad("copyMessage", { chat_id: chatId, message_id: "x" }, 400, "Bad Request: message_id must be an Integer");
  });
});

describe("editing", () => {
  test("edit text keeps buttons when reply_markup is omitted and removes them with null", async () => {
    const sent = await call("sendMessage", {
      chat_id: chatId,
      text: "v1",
      reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
    });
    const id = sent.body.result.message_id;
    const e1 = await call("editMessageText", { chat_id: chatId, message_id: id, text: "v2" });
    expect(e1.status).toBe(200);
    expect(e1.body.result).toMatchObject({
      text: "v2",
      reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
    });
    expect(typeof e1.body.result.edit_date).toBe("number");
    await bad(
      "editMessageText",
      { chat_id: chatId, message_id: id, text: "v2" },
      400,
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
    const e2 = await call("editMessageText", { chat_id: chatId, message_id: id, text: "v3", reply_markup: null });
    expect(e2.body.result.reply_markup).toBeUndefined();
    const e3 = await call("editMessageReplyMarkup", {
      chat_id: chatId,
      message_id: id,
      reply_markup: { inline_keyboard: [[{ text: "B", callback_data: "b" }]] },
    });
    expect(e3.body.result.reply_markup.inline_keyboard[0][0].text).toBe("B");
    const e4 = await call("editMessageReplyMarkup", { chat_id: chatId, message_id: id });
    expect(e4.body.result.reply_markup).toBeUndefined();
    const seen = await waitForMessage(person, cid, (m) => m.messageId === id && m.content === "v3");
    expect(seen.replyMarkup).toBeNull();
  });

  test("edit caption", async () => {
    const photo = await call("sendPhoto", {
      chat_id: chatId,
      photo: `http://127.0.0.1:${fileServer.port}/dot.png`,
      caption: "old",
    });
    const id = photo.body.result.message_id;
    const e = await call("editMessageCaption", {
      chat_id: chatId,
      message_id: id,
      caption: "*new*",
      parse_mode: "MarkdownV2",
    });
    expect(e.status).toBe(200);
    expect(e.body.result).toMatchObject({ caption: "new", caption_entities: [{ type: "bold", offset: 0, length: 3 }] });
    await bad("editMessageCaption", { chat_id: chatId, message_id: id }, 400, "Bad Request: message caption is empty");
    await bad(
      "editMessageCaption",
      { chat_id: chatId, message_id: id, caption: "c".repeat(4097) },
      400,
      "Bad Request: message caption is too long",
    );
    const text = await call("sendMessage", { chat_id: chatId, text: "no media" });
    await bad(
      "editMessageCaption",
      { chat_id: chatId, message_id: text.body.result.message_id, caption: "x" },
      400,
      "Bad Request: there is no caption in the message to edit",
    );
    await bad(
      "editMessageText",
      { chat_id: chatId, message_id: id, text: "x" },
      400,
      "Bad Request: there is no text in the message to edit",
    );
  });

  test("editing bad input: missing, unknown, someone else's message", async () => {
    const theirs = await person.post(`/api/social/messages/${cid}`, { content: "mine" });
    const theirSeq = theirs.body.data.message.messageId;
    await bad(
      "editMessageText",
      { chat_id: chatId, message_id: 999999, text: "x" },
      400,
      "Bad Request: message to edit not found",
    );
    await bad(
      "editMessageText",
      { chat_id: chatId, message_id: theirSeq, text: "x" },
      400,
      "Bad Request: message can't be edited",
    );
    await bad("editMessageText", { chat_id: chatId, message_id: theirSeq }, 400, "Bad Request: message text is empty");
    await bad("editMessageText", { chat_id: chatId, text: "x" }, 400, "Bad Request: message_id is empty");
    await bad(
      "editMessageText",
      { inline_message_id: "abc", text: "x" },
      400,
      "Bad Request: inline messages are not supported",
    );
    await bad(
      "editMessageReplyMarkup",
      { chat_id: chatId, message_id: theirSeq },
      400,
      "Bad Request: message can't be edited",
    );
    await bad(
      "editMessageCaption",
      { chat_id: chatId, message_id: 999999, caption: "x" },
      400,
      "Bad Request: message to edit not found",
    );
    const other = await call("sendMessage", { chat_id: chatId, text: "x" });
    expect(other.status).toBe(200);
    // another bot cannot touch this bot's chat at all
    const r = await botCall(server.url, otherToken, "editMessageText", {
      chat_id: chatId,
      message_id: other.body.result.message_id,
      text: "hijack",
    });
    expect(r.status).toBe(400);
  });

  test("delete, pin, unpin, reactions", async () => {
    const sent = await call("sendMessage", { chat_id: chatId, text: "to delete" });
    const id = sent.body.result.message_id;
    expect((await call("pinChatMessage", { chat_id: chatId, message_id: id })).body.result).toBe(true);
    expect((await history(person, cid)).find((m) => m.messageId === id).pinned).toBe(true);
    expect((await call("unpinChatMessage", { chat_id: chatId })).body.result).toBe(true);
    expect((await history(person, cid)).find((m) => m.messageId === id).pinned).toBe(false);
    const theirs = await person.post(`/api/social/messages/${cid}`, { content: "react to me" });
    const theirSeq = theirs.body.data.message.messageId;
    expect(
      (
        await call("setMessageReaction", {
          chat_id: chatId,
          message_id: theirSeq,
          reaction: [{ type: "emoji", emoji: "👍" }],
        })
      ).body.result,
    ).toBe(true);
    expect((await history(person, cid)).find((m) => m.messageId === theirSeq).reactions).toEqual([
      { emoji: "👍", count: 1, userIds: [expect.any(String)] },
    ]);
    expect(
      (await call("setMessageReaction", { chat_id: chatId, message_id: theirSeq, reaction: [] })).body.result,
    ).toBe(true);
    expect((await history(person, cid)).find((m) => m.messageId === theirSeq).reactions).toEqual([]);
    await bad(
      "setMessageReaction",
      {
        chat_id: chatId,
        message_id: theirSeq,
        reaction: [
          { type: "emoji", emoji: "👍" },
          { type: "emoji", emoji: "🔥" },
        ],
      },
      400,
      "Bad Request: REACTIONS_TOO_MANY",
    );
    await bad(
      "setMessageReaction",
      { chat_id: chatId, message_id: theirSeq, reaction: [{ type: "custom_emoji", custom_emoji_id: "1" }] },
      400,
      "Bad Request: REACTION_INVALID",
    );
    await bad(
      "setMessageReaction",
      { chat_id: chatId, message_id: theirSeq, reaction: [{ type: "emoji", emoji: "hello" }] },
      400,
      "Bad Request: REACTION_INVALID",
    );
    await bad(
      "setMessageReaction",
      { chat_id: chatId, message_id: 999999, reaction: [] },
      400,
      "Bad Request: message to react not found",
    );
    await bad("deleteMessage", { chat_id: chatId, message_id: theirSeq }, 400, "Bad Request: message can't be deleted");
    await bad(
      "deleteMessage",
      { chat_id: chatId, message_id: 999999 },
      400,
      "Bad Request: message to delete not found",
    );
    await bad("pinChatMessage", { chat_id: chatId, message_id: 999999 }, 400, "Bad Request: message to pin not found");
    await bad("pinChatMessage", { chat_id: chatId }, 400, "Bad Request: message_id is empty");
    expect((await call("deleteMessage", { chat_id: chatId, message_id: id })).body.result).toBe(true);
    expect((await history(person, cid)).some((m) => m.messageId === id)).toBe(false);
    await bad("deleteMessage", { chat_id: chatId, message_id: id }, 400, "Bad Request: message to delete not found");
  });
});

describe("chats and groups", () => {
  test("private chat info", async () => {
    const chat = await call("getChat", { chat_id: chatId });
    expect(chat.body.result).toMatchObject({
      id: chatId,
      type: "private",
      username: personUser.username,
      first_name: personUser.display_name,
      accent_color_id: 0,
      max_reaction_count: 1,
    });
    expect((await call("getChatMemberCount", { chat_id: chatId })).body.result).toBe(2);
    const member = await call("getChatMember", { chat_id: chatId, user_id: `@${personUser.username}` });
    expect(member.body.result).toEqual({
      status: "member",
      user: { id: chatId, is_bot: false, first_name: personUser.display_name, username: personUser.username },
    });
    await bad("getChat", { chat_id: 987654321 }, 400, "Bad Request: chat not found");
    await bad("getChatMember", { chat_id: chatId, user_id: 987654321 }, 400, "Bad Request: user not found");
    await bad("getChatMember", { chat_id: chatId }, 400, "Bad Request: user_id is empty");
    await bad(
      "banChatMember",
      { chat_id: chatId, user_id: chatId },
      400,
      "Bad Request: chat member status can't be changed in private chats",
    );
    await bad("leaveChat", { chat_id: chatId }, 400, "Bad Request: chat not found");
  });

  test("group: added bot gets my_chat_member, needs rights, manages the group when promoted", async () => {
    const g = await person.post("/api/social/groups", { title: "Club", members: [stranger.username] });
    expect(g.status).toBe(200);
    const gid = g.body.data.conversationId as string;
    await call("getUpdates", { offset: -1 });
    const last = (await call("getUpdates")).body.result.at(-1)?.update_id ?? 0;
    expect((await person.post(`/api/social/groups/${gid}/members`, { username: "methods_bot" })).status).toBe(200);
    const ups = (await call("getUpdates", { offset: last + 1 })).body.result;
    const added = ups.find((u: any) => u.my_chat_member);
    expect(added.my_chat_member).toMatchObject({
      chat: { type: "group", title: "Club" },
      from: { id: chatId },
      old_chat_member: { status: "left" },
      new_chat_member: { status: "member", user: { username: "methods_bot", is_bot: true } },
    });
    const groupId = added.my_chat_member.chat.id as number;
    expect(groupId).toBeLessThan(0);

    expect((await call("getChat", { chat_id: groupId })).body.result).toMatchObject({
      id: groupId,
      type: "group",
      title: "Club",
    });
    expect((await call("getChatMemberCount", { chat_id: groupId })).body.result).toBe(3);
    const admins = (await call("getChatAdministrators", { chat_id: groupId })).body.result;
    expect(admins).toEqual([
      expect.objectContaining({ status: "creator", user: expect.objectContaining({ id: chatId }) }),
    ]);
    expect((await call("sendMessage", { chat_id: groupId, text: "hello group" })).status).toBe(200);
    await bad(
      "setChatTitle",
      { chat_id: groupId, title: "Mine" },
      403,
      "Forbidden: not enough rights to change chat info",
    );
    await bad(
      "banChatMember",
      { chat_id: groupId, user_id: stranger.id },
      403,
      "Forbidden: not enough rights to restrict/ban chat member",
    );
    await bad(
      "promoteChatMember",
      { chat_id: groupId, user_id: stranger.id, can_pin_messages: true },
      403,
      "Forbidden: not enough rights to promote chat member",
    );

    const promote = await person.post(`/api/social/groups/${gid}/members/methods_bot/promote`, {
      rights: {
        can_change_info: true,
        can_restrict_members: true,
        can_promote_members: true,
        can_pin_messages: true,
        can_delete_messages: true,
        can_invite_users: true,
      },
    });
    expect(promote.status).toBe(200);
    const promoted = (await call("getUpdates", { offset: ups.at(-1).update_id + 1 })).body.result.find(
      (u: any) => u.my_chat_member,
    );
    expect(promoted.my_chat_member.new_chat_member).toMatchObject({ status: "administrator", can_change_info: true });

    await bad("setChatTitle", { chat_id: groupId }, 400, "Bad Request: chat title is empty");
    await bad(
      "setChatTitle",
      { chat_id: groupId, title: "t".repeat(129) },
      400,
      "Bad Request: title is too long (maximum 128)",
    );
    expect((await call("setChatTitle", { chat_id: groupId, title: "Bot Club" })).body.result).toBe(true);
    expect((await call("getChat", { chat_id: groupId })).body.result.title).toBe("Bot Club");
    expect(
      (await call("setChatPhoto", { chat_id: groupId, photo: `http://127.0.0.1:${fileServer.port}/dot.png` })).body
        .result,
    ).toBe(true);
    expect((await call("getChat", { chat_id: groupId })).body.result.photo).toBeDefined();
    await bad("setChatPhoto", { chat_id: groupId }, 400, "Bad Request: there is no photo in the request");

    expect(
      (await call("promoteChatMember", { chat_id: groupId, user_id: stranger.id, can_pin_messages: true })).body.result,
    ).toBe(true);
    const strangerMember = (await call("getChatMember", { chat_id: groupId, user_id: stranger.id })).body.result;
    expect(strangerMember).toMatchObject({ status: "administrator", can_pin_messages: true, can_change_info: false });
    expect((await call("getChatAdministrators", { chat_id: groupId })).body.result.length).toBe(3);
    // the promoter may change or revoke the rights it gave, as in the compatible API
    expect(
      (
        await call("promoteChatMember", {
          chat_id: groupId,
          user_id: stranger.id,
          can_pin_messages: true,
          can_invite_users: true,
        })
      ).body.result,
    ).toBe(true);
    expect((await call("getChatMember", { chat_id: groupId, user_id: stranger.id })).body.result).toMatchObject({
      status: "administrator",
      can_invite_users: true,
    });
    expect((await call("promoteChatMember", { chat_id: groupId, user_id: stranger.id })).body.result).toBe(true);
    expect((await call("getChatMember", { chat_id: groupId, user_id: stranger.id })).body.result.status).toBe("member");
    // an administrator the creator made is out of the bot's reach
    expect(
      (
        await person.post(`/api/social/groups/${gid}/members/${stranger.username}/promote`, {
          rights: { can_pin_messages: true },
        })
      ).status,
    ).toBe(200);
    await bad(
      "promoteChatMember",
      { chat_id: groupId, user_id: stranger.id },
      403,
      "Forbidden: not enough rights to promote chat member",
    );
    await bad(
      "banChatMember",
      { chat_id: groupId, user_id: stranger.id },
      403,
      "Forbidden: not enough rights to restrict/ban chat member",
    );
    expect(
      (await person.post(`/api/social/groups/${gid}/members/${stranger.username}/promote`, { role: "member" })).status,
    ).toBe(200);
    expect((await call("getChatMember", { chat_id: groupId, user_id: stranger.id })).body.result.status).toBe("member");
    await bad(
      "promoteChatMember",
      { chat_id: groupId, user_id: chatId, can_pin_messages: true },
      400,
      "Bad Request: can't change the rights of the chat owner",
    );
    await bad("banChatMember", { chat_id: groupId, user_id: chatId }, 400, "Bad Request: can't remove chat owner");

    expect((await call("banChatMember", { chat_id: groupId, user_id: stranger.id })).body.result).toBe(true);
    expect((await call("getChatMember", { chat_id: groupId, user_id: stranger.id })).body.result.status).toBe("kicked");
    expect((await call("unbanChatMember", { chat_id: groupId, user_id: stranger.id })).body.result).toBe(true);
    expect((await call("getChatMemberCount", { chat_id: groupId })).body.result).toBe(2);

    // privacy "commands": plain group chatter does not reach the bot, commands and replies do
    const before = (await call("getUpdates", { offset: -1 })).body.result.at(-1)?.update_id ?? 0;
    await person.post(`/api/social/messages/${gid}`, { content: "just chatting" });
    await person.post(`/api/social/messages/${gid}`, { content: "/help@methods_bot" });
    await person.post(`/api/social/messages/${gid}`, { content: "/help@someone_else_bot" });
    const texts = (await call("getUpdates", { offset: before + 1 })).body.result
      .filter((u: any) => u.message)
      .map((u: any) => u.message.text);
    expect(texts).toEqual(["/help@methods_bot"]);
    // a reply to the bot's own message reaches it too
    const botMsg = (await call("sendMessage", { chat_id: groupId, text: "reply to me" })).body.result.message_id;
    const mark = (await call("getUpdates", { offset: -1 })).body.result.at(-1)?.update_id ?? 0;
    expect((await person.post(`/api/social/messages/${gid}`, { content: "a reply", replyToId: botMsg })).status).toBe(
      200,
    );
    const reply = (await call("getUpdates", { offset: mark + 1 })).body.result.find((u: any) => u.message);
    expect(reply.message).toMatchObject({
      text: "a reply",
      reply_to_message: { message_id: botMsg, text: "reply to me" },
    });

    expect((await call("leaveChat", { chat_id: groupId })).body.result).toBe(true);
    await bad(
      "sendMessage",
      { chat_id: groupId, text: "still here?" },
      403,
      "Forbidden: bot is not a member of the group chat",
    );
  });
});
