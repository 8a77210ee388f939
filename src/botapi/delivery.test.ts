import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import type { UserRow } from "../domain/users/table";
import { WsClient } from "../testing/realtime";
import { botCall, botWorld, createBotViaApi, openChat, PNG_1x1, waitForMessage } from "../testing/botapi";
import { botApiUserId } from "../domain/bots/ids";

/**
 * What a person sees of a bot's messages (Client API history and the realtime stream), mentions
 * by id, and chats the bot has no part in.
 */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let token: string;
let cid: string;

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld());
  token = await createBotViaApi(owner, "delivery_bot", "Delivery");
  cid = await openChat(person, "delivery_bot");
});
afterAll(() => server.stop());

const call = (method: string, params: Record<string, unknown> = {}) => botCall(server.url, token, method, params);
const expectError = async (method: string, params: Record<string, unknown>, status: number, description: string) => {
  const res = await call(method, params);
  expect({ method, status: res.status, body: res.body }).toEqual({
    method,
    status,
    body: { ok: false, error_code: status, description },
  });
};

describe("the person's side of a bot's messages", () => {
  test("HTML, MarkdownV2 and a photo with buttons arrive live and in history with entities, media and buttons", async () => {
    const ws = await WsClient.open(server.url, person);
    try {
      const keyboard = {
        inline_keyboard: [
          [
            { text: "Yes", callback_data: "yes" },
            { text: "Docs", url: "https://example.com/docs" },
          ],
        ],
      };
      const html = await call("sendMessage", {
        chat_id: personUser.id,
        text: "<b>Bold</b> and <i>it</i> /help",
        parse_mode: "HTML",
        reply_markup: keyboard,
      });
      expect(html.status).toBe(200);
      const md = await call("sendMessage", {
        chat_id: personUser.id,
        text: "*b* _i_ __u__ ~s~ `c` [link](https://example.com/x) 1\\.5",
        parse_mode: "MarkdownV2",
      });
      expect(md.status).toBe(200);
      expect(md.body.result.text).toBe("b i u s c link 1.5");
      const fd = new FormData();
      fd.set("chat_id", String(personUser.id));
      fd.set("caption", "<u>dot</u>");
      fd.set("parse_mode", "HTML");
      fd.set("reply_markup", JSON.stringify({ inline_keyboard: [[{ text: "Again", callback_data: "again" }]] }));
      fd.set("photo", new File([PNG_1x1], "dot.png", { type: "image/png" }));
      const photo = (await (
        await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: fd })
      ).json()) as any;
      expect(photo.ok).toBe(true);

      const frames = await ws.waitFor((f) => f.filter((x) => x.event === "message:new").length >= 3);
      const live = frames.filter((f) => f.event === "message:new").map((f) => f.data);
      expect(live.every((d) => d.conversationId === cid)).toBe(true);
      const [liveHtml, liveMd, livePhoto] = live.map((d) => d.message);
      expect(liveHtml).toMatchObject({
        messageId: html.body.result.message_id,
        content: "Bold and it /help",
        entities: [
          { type: "bold", offset: 0, length: 4 },
          { type: "italic", offset: 9, length: 2 },
          { type: "bot_command", offset: 12, length: 5 },
        ],
        replyMarkup: keyboard,
        sender: { username: "delivery_bot", isBot: true },
      });
      expect(liveMd.entities).toEqual([
        { type: "bold", offset: 0, length: 1 },
        { type: "italic", offset: 2, length: 1 },
        { type: "underline", offset: 4, length: 1 },
        { type: "strikethrough", offset: 6, length: 1 },
        { type: "code", offset: 8, length: 1 },
        { type: "text_link", offset: 10, length: 4, url: "https://example.com/x" },
      ]);
      expect(livePhoto).toMatchObject({
        content: "dot",
        entities: [{ type: "underline", offset: 0, length: 3 }],
        media: [{ type: "image", url: photo.result.photo[0].file_id, mime: "image/png", width: 1, height: 1 }],
        replyMarkup: { inline_keyboard: [[{ text: "Again", callback_data: "again" }]] },
      });
      // the same in history, and the file itself downloads
      const stored = await waitForMessage(person, cid, (m) => m.messageId === photo.result.message_id);
      expect(stored.media).toEqual(livePhoto.media);
      expect((await fetch(server.url + new URL(stored.media[0].url).pathname)).status).toBe(200);
      const storedHtml = await waitForMessage(person, cid, (m) => m.messageId === html.body.result.message_id);
      expect(storedHtml.replyMarkup).toEqual(keyboard);
      expect(storedHtml.entities).toEqual(liveHtml.entities);
    } finally {
      ws.close();
    }
  });

  test("markup errors are 400 with the compatible description and nothing is sent", async () => {
    const before = (await call("sendMessage", { chat_id: personUser.id, text: "marker" })).body.result.message_id;
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "1.5", parse_mode: "MarkdownV2" },
      400,
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "<b>open", parse_mode: "HTML" },
      400,
      "Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\"",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "<b> </b>", parse_mode: "HTML" },
      400,
      "Bad Request: message text is empty",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "\n\t \n" },
      400,
      "Bad Request: message text is empty",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "x", parse_mode: "BBCode" },
      400,
      "Bad Request: unsupported parse_mode",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "hi", entities: [{ type: "bold", offset: 0, length: 9 }] },
      400,
      "Bad Request: entity beginning at UTF-16 offset 0 ends after the end of the text at UTF-16 offset 9",
    );
    const after = (await call("sendMessage", { chat_id: personUser.id, text: "marker" })).body.result.message_id;
    expect(after).toBe(before + 1);
  });

  test("texts and captions are trimmed at both ends (inner whitespace kept) and entities follow", async () => {
    const r = await call("sendMessage", {
      chat_id: personUser.id,
      text: "\n  two  spaces <b>here </b> \n",
      parse_mode: "HTML",
    });
    expect(r.status).toBe(200);
    expect(r.body.result.text).toBe("two  spaces here");
    expect(r.body.result.entities).toEqual([{ type: "bold", offset: 12, length: 4 }]);
    const seen = await waitForMessage(person, cid, (m) => m.messageId === r.body.result.message_id);
    expect(seen.content).toBe("two  spaces here");
    expect(seen.entities).toEqual([{ type: "bold", offset: 12, length: 4 }]);
    const given = await call("sendMessage", {
      chat_id: personUser.id,
      text: "  /go now ",
      entities: [{ type: "italic", offset: 0, length: 5 }],
    });
    expect(given.body.result).toMatchObject({
      text: "/go now",
      entities: [
        { type: "italic", offset: 0, length: 3 },
        { type: "bot_command", offset: 0, length: 3 },
      ],
    });
    const fd = new FormData();
    fd.set("chat_id", String(personUser.id));
    fd.set("caption", "   ");
    fd.set("photo", new File([PNG_1x1], "dot.png", { type: "image/png" }));
    const photo = (await (
      await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: fd })
    ).json()) as any;
    expect(photo.ok).toBe(true);
    expect(photo.result.caption).toBeUndefined();
  });
});

describe("mentions by id", () => {
  test("a text_mention entity names an account and carries its full User; an unknown id is refused", async () => {
    const r = await call("sendMessage", {
      chat_id: personUser.id,
      text: "hi you",
      entities: [{ type: "text_mention", offset: 3, length: 3, user: { id: personUser.id } }],
    });
    expect(r.status).toBe(200);
    expect(r.body.result.entities).toEqual([
      {
        type: "text_mention",
        offset: 3,
        length: 3,
        user: {
          id: botApiUserId(personUser.id),
          is_bot: false,
          first_name: personUser.display_name,
          username: personUser.username,
        },
      },
    ]);
    await expectError(
      "sendMessage",
      {
        chat_id: personUser.id,
        text: "hi you",
        entities: [{ type: "text_mention", offset: 3, length: 3, user: { id: 987654321 } }],
      },
      400,
      "Bad Request: user not found",
    );
    await expectError(
      "sendMessage",
      { chat_id: personUser.id, text: "hi you", entities: [{ type: "text_mention", offset: 3, length: 3 }] },
      400,
      `Bad Request: can't parse MessageEntity: Can't find field "user"`,
    );
  });

  test("a tg://user?id= link in markup becomes a text_mention of that account; an unknown id stays a link", async () => {
    const r = await call("sendMessage", {
      chat_id: personUser.id,
      text: `<a href="tg://user?id=${personUser.id}">you</a> and <a href="tg://user?id=987654321">ghost</a>`,
      parse_mode: "HTML",
    });
    expect(r.status).toBe(200);
    expect(r.body.result.entities).toEqual([
      {
        type: "text_mention",
        offset: 0,
        length: 3,
        user: {
          id: botApiUserId(personUser.id),
          is_bot: false,
          first_name: personUser.display_name,
          username: personUser.username,
        },
      },
      { type: "text_link", offset: 8, length: 5, url: "tg://user?id=987654321" },
    ]);
    const edited = await call("editMessageText", {
      chat_id: personUser.id,
      message_id: r.body.result.message_id,
      text: "bye",
      entities: [{ type: "text_mention", offset: 0, length: 3, user: { id: 987654321 } }],
    });
    expect(edited.body).toEqual({ ok: false, error_code: 400, description: "Bad Request: user not found" });
  });
});

describe("chats the bot has no part in", () => {
  test("forward and copy from a group the bot is not in, or from a person never met, are 'chat not found'; no chat is opened", async () => {
    const { client: other, user: otherUser } = await signedInClient(server);
    const group = (await other.post("/api/social/groups", { title: "Private club", members: [personUser.username] }))
      .body.data.conversationId;
    const secret = (await other.post(`/api/social/messages/${group}`, { content: "club secret" })).body.data.message;
    const groupId = -(
      await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", group).executeTakeFirstOrThrow()
    ).id;
    await expectError(
      "forwardMessage",
      { chat_id: personUser.id, from_chat_id: groupId, message_id: secret.messageId },
      400,
      "Bad Request: chat not found",
    );
    await expectError(
      "copyMessage",
      { chat_id: personUser.id, from_chat_id: groupId, message_id: secret.messageId },
      400,
      "Bad Request: chat not found",
    );
    await expectError(
      "forwardMessage",
      { chat_id: personUser.id, from_chat_id: otherUser.id, message_id: 1 },
      400,
      "Bad Request: chat not found",
    );
    await expectError(
      "copyMessage",
      { chat_id: personUser.id, from_chat_id: `@${otherUser.username}`, message_id: 1 },
      400,
      "Bad Request: chat not found",
    );
    // without from_chat_id the source is the target chat, where that number is someone else's story
    await expectError(
      "copyMessage",
      { chat_id: personUser.id, message_id: 999_999 },
      400,
      "Bad Request: message to copy not found",
    );
    // a caption replaces a media message's caption and leaves a text message as it is
    const text = (await call("sendMessage", { chat_id: personUser.id, text: "copy me" })).body.result.message_id;
    const textCopy = await call("copyMessage", { chat_id: personUser.id, message_id: text, caption: "" });
    expect(textCopy.status).toBe(200);
    expect((await waitForMessage(person, cid, (m) => m.messageId === textCopy.body.result.message_id)).content).toBe(
      "copy me",
    );
    const fd = new FormData();
    fd.set("chat_id", String(personUser.id));
    fd.set("caption", "old caption");
    fd.set("photo", new File([PNG_1x1], "dot.png", { type: "image/png" }));
    const photo = (await (
      await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: fd })
    ).json()) as any;
    const photoCopy = await call("copyMessage", {
      chat_id: personUser.id,
      message_id: photo.result.message_id,
      caption: "<i>new</i> caption",
      parse_mode: "HTML",
    });
    const copied = await waitForMessage(person, cid, (m) => m.messageId === photoCopy.body.result.message_id);
    expect(copied).toMatchObject({
      content: "new caption",
      entities: [{ type: "italic", offset: 0, length: 3 }],
      media: [{ type: "image", url: photo.result.photo[0].file_id }],
    });
    // an invoice is paid once, in its own chat
    const invoice = await call("sendInvoice", {
      chat_id: personUser.id,
      title: "Tea",
      description: "A cup",
      payload: "tea-1",
      currency: "XTR",
      prices: [{ label: "Tea", amount: 5 }],
    });
    expect(invoice.status).toBe(200);
    await expectError(
      "copyMessage",
      { chat_id: personUser.id, message_id: invoice.body.result.message_id },
      400,
      "Bad Request: message can't be copied",
    );
    await expectError(
      "forwardMessage",
      { chat_id: personUser.id, message_id: invoice.body.result.message_id },
      400,
      "Bad Request: message can't be forwarded",
    );
    // reading a chat never opened does not open it either
    await expectError("getChat", { chat_id: otherUser.id }, 400, "Bad Request: chat not found");
    await expectError(
      "sendChatAction",
      { chat_id: otherUser.id, action: "typing" },
      400,
      "Bad Request: chat not found",
    );
    await expectError("deleteMessage", { chat_id: otherUser.id, message_id: 1 }, 400, "Bad Request: chat not found");
    const chats = (await other.get("/api/social/messages")).body.data.conversations as any[];
    expect(chats.map((c) => c.id)).toEqual([group]);
  });

  test("a person who blocked the bot can still be looked up, but not written to", async () => {
    const { client: blocker, user } = await signedInClient(server);
    await openChat(blocker, "delivery_bot");
    expect((await blocker.post("/api/social/users/delivery_bot/block")).status).toBe(200);
    const chat = await call("getChat", { chat_id: user.id });
    expect(chat.body.result).toMatchObject({ id: botApiUserId(user.id), type: "private", username: user.username });
    await expectError(
      "sendMessage",
      { chat_id: user.id, text: "hello?" },
      403,
      "Forbidden: bot was blocked by the user",
    );
    await expectError("sendDice", { chat_id: user.id }, 403, "Forbidden: bot was blocked by the user");
    await expectError(
      "sendChatAction",
      { chat_id: user.id, action: "typing" },
      403,
      "Forbidden: bot was blocked by the user",
    );
    await expectError(
      "copyMessage",
      { chat_id: user.id, from_chat_id: personUser.id, message_id: 1 },
      403,
      "Forbidden: bot was blocked by the user",
    );
  });
});

describe("bad input of the less used methods", () => {
  test("pins, counts, administrators, unban, callback answers, webhook conflict", async () => {
    const sent = (await call("sendMessage", { chat_id: personUser.id, text: "pin target" })).body.result.message_id;
    await expectError(
      "unpinChatMessage",
      { chat_id: personUser.id, message_id: 999_999 },
      400,
      "Bad Request: message to unpin not found",
    );
    await expectError("unpinChatMessage", { message_id: sent }, 400, "Bad Request: chat_id is empty");
    await expectError(
      "unpinChatMessage",
      { chat_id: personUser.id, message_id: "last" },
      400,
      "Bad Request: message_id must be an Integer",
    );
    await expectError("getChatMemberCount", { chat_id: -424242 }, 400, "Bad Request: chat not found");
    await expectError("getChatAdministrators", { chat_id: "@no_such_person" }, 400, "Bad Request: chat not found");
    await expectError(
      "unbanChatMember",
      { chat_id: personUser.id, user_id: personUser.id },
      400,
      "Bad Request: chat member status can't be changed in private chats",
    );
    await expectError("answerCallbackQuery", {}, 400, "Bad Request: callback_query_id is empty");
    await expectError(
      "answerCallbackQuery",
      { callback_query_id: "nope", text: "t".repeat(201) },
      400,
      "Bad Request: text is too long (maximum 200)",
    );
    await expectError(
      "answerCallbackQuery",
      { callback_query_id: "nope", url: "javascript:alert(1)" },
      400,
      "Bad Request: URL_INVALID",
    );
    await expectError(
      "answerCallbackQuery",
      { callback_query_id: "nope" },
      400,
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    await expectError(
      "answerCallbackQuery",
      { callback_query_id: "nope", show_alert: "perhaps" },
      400,
      "Bad Request: show_alert must be a Boolean",
    );

    const { client: other } = await signedInClient(server);
    const group = (await other.post("/api/social/groups", { title: "With bot", members: ["delivery_bot"] })).body.data
      .conversationId;
    const groupId = -(
      await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", group).executeTakeFirstOrThrow()
    ).id;
    await expectError("unbanChatMember", { chat_id: groupId, user_id: 987654321 }, 400, "Bad Request: user not found");
    await expectError("unbanChatMember", { chat_id: groupId }, 400, "Bad Request: user_id is empty");
    await expectError(
      "getChatMember",
      { chat_id: groupId, user_id: "@nobody_at_all" },
      400,
      "Bad Request: user not found",
    );
    expect((await call("getChatAdministrators", { chat_id: groupId })).body.result).toEqual([
      { status: "creator", user: expect.objectContaining({ is_bot: false }), is_anonymous: false },
    ]);
  });

  test("getUpdates while a webhook is set is 409 with the compatible wording; unknown methods 404", async () => {
    const hookToken = await createBotViaApi(owner, "hooked_delivery_bot");
    expect((await botCall(server.url, hookToken, "setWebhook", { url: "https://example.com/hook" })).body.result).toBe(
      true,
    );
    const r = await botCall(server.url, hookToken, "getUpdates", { timeout: 0 });
    expect({ status: r.status, body: r.body }).toEqual({
      status: 409,
      body: {
        ok: false,
        error_code: 409,
        description:
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      },
    });
    const unknown = await botCall(server.url, hookToken, "sendTelepathy", { thought: "x" });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 404,
      body: { ok: false, error_code: 404, description: "Not Found: method not found" },
    });
    expect((await botCall(server.url, hookToken, "deleteWebhook")).body.result).toBe(true);
  });
});
