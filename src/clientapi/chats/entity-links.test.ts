import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { botApiUserId } from "../../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, openChat, PNG_1x1, type BotWorld } from "../../testing/botapi";

/**
 * The URL an entity carries passes one rule, whichever surface brought it: http(s) (normalized),
 * tg: and ton: links; javascript:, data:, vbscript:, file: and the rest are refused.
 */
let world: BotWorld;
let token: string;
let cid: string;
let chatId: number;

beforeAll(async () => {
  world = await botWorld();
  token = await createBotViaApi(world.owner, "links_bot");
  cid = await openChat(world.person, "links_bot");
  chatId = botApiUserId(world.personUser.id);
});
afterAll(() => world.server.stop());

const REFUSED = [
  "javascript:alert(document.cookie)",
  "JavaScript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  " javascript:alert(1)",
];

const textLink = (url: string, type = "text_link") => [{ type, offset: 0, length: 5, url }];

describe("Client API: a person's message", () => {
  test("send: a text_link (or any entity's url) outside the rule is refused, naming the field", async () => {
    for (const url of REFUSED) {
      const res = await world.person.post(`/api/social/messages/${cid}`, {
        content: "click here",
        entities: textLink(url),
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors["entities.0.url"][0]).toContain("is not an allowed link");
    }
    const smuggled = await world.person.post(`/api/social/messages/${cid}`, {
      content: "click here",
      entities: textLink("javascript:alert(1)", "bold"),
    });
    expect(smuggled.status).toBe(400);
    expect(Object.keys(smuggled.body.error.details.fieldErrors)).toEqual(["entities.0.url"]);
  });

  test("send: allowed links are kept as the rule normalizes them, and reach the bot so", async () => {
    const res = await world.person.post(`/api/social/messages/${cid}`, {
      content: "click here and there",
      entities: [
        { type: "text_link", offset: 0, length: 5, url: "HTTPS://Example.COM" },
        { type: "text_link", offset: 15, length: 5, url: "tg://resolve?domain=links_bot" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.message.entities).toEqual([
      { type: "text_link", offset: 0, length: 5, url: "https://example.com/" },
      { type: "text_link", offset: 15, length: 5, url: "tg://resolve?domain=links_bot" },
    ]);
    const updates = (await botCall(world.server.url, token, "getUpdates", { timeout: 0 })).body.result as any[];
    const got = updates.find((u) => u.message?.text === "click here and there");
    expect(got.message.entities).toContainEqual({
      type: "text_link",
      offset: 0,
      length: 5,
      url: "https://example.com/",
    });
  });

  test("edit: the same rule", async () => {
    const sent = await world.person.post(`/api/social/messages/${cid}`, { content: "edit me now" });
    const mid = sent.body.data.message.id;
    for (const url of REFUSED) {
      const res = await world.person.patch(`/api/social/messages/${cid}/${mid}`, {
        content: "edit me again",
        entities: textLink(url),
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fieldErrors["entities.0.url"][0]).toContain("is not an allowed link");
    }
    const ok = await world.person.patch(`/api/social/messages/${cid}/${mid}`, {
      content: "edit me again",
      entities: textLink("example.com/a b"),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.message.entities).toEqual(textLink("http://example.com/a%20b"));
  });
});

describe("Bot API: every send and edit", () => {
  const refusedFor = (res: { status: number; body: any }, url: string) => {
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.description).toStartWith(`Bad Request: entity URL '${url}' is invalid`);
  };

  /** sendPhoto as a form, the way libraries upload: a captioned dot, with CAPTION_ENTITIES when given. */
  const sendPhoto = async (captionEntities?: unknown) => {
    const form = new FormData();
    form.set("chat_id", String(chatId));
    form.set("caption", "a dot");
    if (captionEntities) form.set("caption_entities", JSON.stringify(captionEntities));
    form.set("photo", new File([PNG_1x1], "dot.png", { type: "image/png" }));
    const res = await fetch(`${world.server.url}/bot${token}/sendPhoto`, { method: "POST", body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("sendMessage, editMessageText, captions of sendPhoto and editMessageCaption refuse them", async () => {
    const { server } = world;
    const sent = await botCall(server.url, token, "sendMessage", { chat_id: chatId, text: "plain text" });
    expect(sent.status).toBe(200);
    const withPhoto = await sendPhoto();
    expect(withPhoto.status).toBe(200);
    for (const url of REFUSED.slice(0, 5)) {
      refusedFor(
        await botCall(server.url, token, "sendMessage", {
          chat_id: chatId,
          text: "click here",
          entities: textLink(url),
        }),
        url,
      );
      refusedFor(
        await botCall(server.url, token, "editMessageText", {
          chat_id: chatId,
          message_id: sent.body.result.message_id,
          text: "click there",
          entities: textLink(url),
        }),
        url,
      );
      refusedFor(
        await botCall(server.url, token, "editMessageCaption", {
          chat_id: chatId,
          message_id: withPhoto.body.result.message_id,
          caption: "a dot!",
          caption_entities: textLink(url),
        }),
        url,
      );
      refusedFor(await sendPhoto(textLink(url)), url);
    }
  });

  test("markup parsers make no link of a refused URL", async () => {
    const html = await botCall(world.server.url, token, "sendMessage", {
      chat_id: chatId,
      text: '<a href="javascript:alert(1)">click</a> <a href="data:text/html,x">here</a>',
      parse_mode: "HTML",
    });
    expect(html.status).toBe(200);
    expect(JSON.stringify(html.body.result.entities ?? [])).not.toContain("text_link");
  });
});
