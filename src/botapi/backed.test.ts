import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { verifyWebAppData } from "../domain/bots/webapp";
import { storeUpload } from "../media/uploads";
import { botCall, botWorld, createBotViaApi, history, openChat } from "../testing/botapi";
import { pngOf } from "../testing/media";
import { Bot, InputFile } from "grammy";
import type { Message } from "@grammyjs/types";

const sizesOf = (m: Message) => m.photo ?? [];

/** Methods beyond the spec's tables that bots call and the product can back. */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let token: string;
let chatId: number;
let cid: string;
const call = (method: string, params: Record<string, unknown> = {}) => botCall(server.url, token, method, params);
const upload = async (method: string, field: string, file: File, extra: Record<string, string> = {}) => {
  const form = new FormData();
  form.set("chat_id", String(chatId));
  form.set(field, file);
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  const res = await fetch(`${server.url}/bot${token}/${method}`, { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as any };
};
const send = async (text: string) =>
  (await call("sendMessage", { chat_id: chatId, text })).body.result.message_id as number;

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld());
  token = await createBotViaApi(owner, "backed_bot", "Backed");
  cid = await openChat(person, "backed_bot");
  chatId = botApiUserId(personUser.id);
});
afterAll(() => server.stop());

describe("files as the compatible API describes them", () => {
  test("a photo comes back as PhotoSizes (thumbnail, original); documents carry a thumbnail; audio keeps performer, title, duration", async () => {
    const png = await pngOf(server.app, 640, 480);
    const photo = await upload("sendPhoto", "photo", new File([png], "wide.png", { type: "image/png" }));
    expect(photo.status).toBe(200);
    const sizes = photo.body.result.photo;
    expect(sizes).toHaveLength(2);
    expect(sizes[0]).toMatchObject({ width: 320, height: 240 });
    expect(sizes[1]).toMatchObject({ width: 640, height: 480, file_size: expect.any(Number) });
    // the thumbnail downloads through getFile like any file
    const thumb = (await call("getFile", { file_id: sizes[0].file_id })).body.result;
    const res = await fetch(`${server.url}/file/bot${token}/${thumb.file_path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");

    const doc = await upload("sendDocument", "document", new File([png], "picture.png", { type: "image/png" }));
    expect(doc.body.result.document.thumbnail).toMatchObject({ width: 320, height: 240 });

    // stored as a file (audio is sent as a document); what the bot says about it is kept
    const audio = await upload(
      "sendAudio",
      "audio",
      new File([new TextEncoder().encode("not really music")], "song.mp3"),
      {
        performer: "The Band",
        title: "The Song",
        duration: "215",
      },
    );
    expect(audio.status).toBe(200);
    expect(audio.body.result.audio).toMatchObject({
      performer: "The Band",
      title: "The Song",
      duration: 215,
      file_name: "song.mp3",
    });
  });
});

describe("batch and chat methods", () => {
  test("deleteMessages skips missing ids; forwardMessages and copyMessages return MessageIds; unpinAllChatMessages", async () => {
    const [a, b, c] = [await send("one"), await send("two"), await send("three")];
    expect((await call("deleteMessages", { chat_id: chatId, message_ids: [a, b, 999999] })).body.result).toBe(true);
    const left = (await history(person, cid)).map((m) => m.content);
    expect(left).not.toContain("one");
    expect(left).not.toContain("two");
    expect(left).toContain("three");
    expect((await call("deleteMessages", { chat_id: chatId, message_ids: [] })).body.description).toBe(
      "Bad Request: message_ids must contain 1-100 items",
    );

    const mine = (await person.post(`/api/social/messages/${cid}`, { content: "from the person" })).body.data.message
      .messageId as number;
    const forwarded = await call("forwardMessages", {
      chat_id: chatId,
      from_chat_id: chatId,
      message_ids: [mine, c, 999999],
    });
    expect(forwarded.body.result).toHaveLength(2);
    expect(forwarded.body.result[0]).toEqual({ message_id: expect.any(Number) });
    const copied = await call("copyMessages", { chat_id: chatId, from_chat_id: chatId, message_ids: [c] });
    expect(copied.body.result).toHaveLength(1);
    const all = await history(person, cid);
    expect(all.filter((m) => m.content === "three")).toHaveLength(3);

    for (const id of [c, copied.body.result[0].message_id])
      expect((await call("pinChatMessage", { chat_id: chatId, message_id: id })).body.result).toBe(true);
    expect((await call("unpinAllChatMessages", { chat_id: chatId })).body.result).toBe(true);
    const conversation = await server.app.db
      .selectFrom("conversations")
      .select("id")
      .where("cuid", "=", cid)
      .executeTakeFirstOrThrow();
    const pinned = await server.app.db
      .selectFrom("messages")
      .select("seq")
      .where("conversation_id", "=", conversation.id)
      .where("pinned", "=", 1)
      .execute();
    expect(pinned).toEqual([]);
  });

  test("invite links of a group the bot administers", async () => {
    const group = await person.post("/api/social/groups", { title: "Invites", members: ["backed_bot"] });
    const gid = group.body.data.conversationId as string;
    const groupId = -(
      await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", gid).executeTakeFirstOrThrow()
    ).id;
    expect((await call("exportChatInviteLink", { chat_id: groupId })).body).toEqual({
      ok: false,
      error_code: 403,
      description: "Forbidden: not enough rights to invite users",
    });
    expect(
      (
        await person.post(`/api/social/groups/${gid}/members/backed_bot/promote`, {
          rights: { can_invite_users: true },
        })
      ).status,
    ).toBe(200);
    const link = (await call("exportChatInviteLink", { chat_id: groupId })).body.result as string;
    expect(link).toMatch(/\/dashboard\/messages\?join=[A-Za-z0-9_-]+$/);
    const made = (await call("createChatInviteLink", { chat_id: groupId, name: "friends" })).body.result;
    // read before toMatchObject below, which leaves its asymmetric matchers in the object it checks
    const madeLink = made.invite_link as string;
    expect(made).toMatchObject({
      invite_link: expect.stringContaining("?join="),
      creator: {
        id: botApiUserId(
          (
            await server.app.db
              .selectFrom("users")
              .select("id")
              .where("username", "=", "backed_bot")
              .executeTakeFirstOrThrow()
          ).id,
        ),
      },
      name: "friends",
      is_revoked: false,
    });
    expect(madeLink).not.toBe(link);

    const edited = await call("editChatInviteLink", { chat_id: groupId, invite_link: madeLink, name: "pals" });
    expect(edited.body.result).toMatchObject({ invite_link: madeLink, name: "pals", is_revoked: false });
    expect((await call("editChatInviteLink", { chat_id: groupId, invite_link: link })).body.description).toBe(
      "Bad Request: INVITE_HASH_EXPIRED",
    );
    const revoked = await call("revokeChatInviteLink", { chat_id: groupId, invite_link: madeLink });
    expect(revoked.body.result).toMatchObject({ invite_link: madeLink, is_revoked: true });
    // the revoked link no longer lets anyone in; the group has a new one
    const code = new URL(madeLink).searchParams.get("join");
    const current = await server.app.db
      .selectFrom("conversations")
      .select("invite_code")
      .where("cuid", "=", gid)
      .executeTakeFirstOrThrow();
    expect(current.invite_code).not.toBeNull();
    expect(current.invite_code).not.toBe(code);

    expect((await call("deleteChatPhoto", { chat_id: groupId })).body.description).toBe(
      "Bad Request: CHAT_NOT_MODIFIED",
    );
    await person.post(`/api/social/groups/${gid}/members/backed_bot/promote`, {
      rights: { can_invite_users: true, can_change_info: true },
    });
    const photo = new FormData();
    photo.set("chat_id", String(groupId));
    photo.set("photo", new File([await pngOf(server.app, 8, 8)], "g.png", { type: "image/png" }));
    expect(
      (await (await fetch(`${server.url}/bot${token}/setChatPhoto`, { method: "POST", body: photo })).json()) as any,
    ).toMatchObject({ ok: true });
    expect((await call("getChat", { chat_id: groupId })).body.result.photo).toBeDefined();
    expect((await call("deleteChatPhoto", { chat_id: groupId })).body).toEqual({ ok: true, result: true });
    expect((await call("getChat", { chat_id: groupId })).body.result.photo).toBeUndefined();
  });

  test("sendContact, live locations moved and stopped, default administrator rights", async () => {
    const contact = await call("sendContact", {
      chat_id: chatId,
      phone_number: "+15550100",
      first_name: "Ada",
      last_name: "Lovelace",
    });
    expect(contact.body.result.contact).toEqual({
      phone_number: "+15550100",
      first_name: "Ada",
      last_name: "Lovelace",
    });
    const seen = (await history(person, cid)).at(-1);
    expect(seen.extra.contact).toMatchObject({ first_name: "Ada", phone_number: "+15550100" });
    expect((await call("sendContact", { chat_id: chatId, first_name: "Ada" })).body.description).toBe(
      "Bad Request: phone number is empty",
    );

    const plain = await call("sendLocation", { chat_id: chatId, latitude: 1, longitude: 2 });
    const moveTo = (id: number, latitude: number, longitude: number) =>
      call("editMessageLiveLocation", { chat_id: chatId, message_id: id, latitude, longitude });
    expect((await moveTo(plain.body.result.message_id, 3, 4)).body.description).toBe(
      "Bad Request: message can't be edited",
    );
    const live = await call("sendLocation", { chat_id: chatId, latitude: 1, longitude: 2, live_period: 600 });
    expect(live.body.result.location).toMatchObject({ latitude: 1, longitude: 2, live_period: 600 });
    const id = live.body.result.message_id as number;
    const moved = await moveTo(id, 1.5, 2.5);
    expect(moved.body.result.location).toMatchObject({ latitude: 1.5, longitude: 2.5 });
    expect((await history(person, cid)).find((m) => m.messageId === id).extra.location).toMatchObject({
      latitude: 1.5,
    });
    const stopped = await call("stopMessageLiveLocation", { chat_id: chatId, message_id: id });
    expect(stopped.body.result.location).toEqual({ latitude: 1.5, longitude: 2.5 });
    expect((await moveTo(id, 5, 6)).body.description).toBe("Bad Request: message can't be edited");
    const expiring = await call("sendLocation", { chat_id: chatId, latitude: 1, longitude: 2, live_period: 60 });
    server.clock.advance(61_000);
    expect((await moveTo(expiring.body.result.message_id, 5, 6)).body.description).toBe(
      "Bad Request: message can't be edited",
    );

    const none = (await call("getMyDefaultAdministratorRights")).body.result;
    expect(Object.values(none).every((v) => v === false)).toBe(true);
    expect(none).toMatchObject({ can_invite_users: false, can_change_info: false, is_anonymous: false });
    expect(
      (await call("setMyDefaultAdministratorRights", { rights: { can_invite_users: true, can_pin_messages: true } }))
        .body.result,
    ).toBe(true);
    expect((await call("getMyDefaultAdministratorRights")).body.result).toMatchObject({
      can_invite_users: true,
      can_pin_messages: true,
      can_change_info: false,
    });
    expect((await call("getMyDefaultAdministratorRights", { for_channels: true })).body.result.can_invite_users).toBe(
      false,
    );
    await call("setMyDefaultAdministratorRights", {});
    expect((await call("getMyDefaultAdministratorRights")).body.result.can_invite_users).toBe(false);
  });

  test("getUserProfilePhotos: the avatar as PhotoSizes, downloadable", async () => {
    expect((await call("getUserProfilePhotos", { user_id: chatId })).body.result).toEqual({
      total_count: 0,
      photos: [],
    });
    const avatar = await storeUpload(server.app, {
      ownerId: personUser.id,
      kind: "avatar",
      data: await pngOf(server.app, 400, 400),
    });
    await server.app.db.updateTable("users").set({ avatar_url: avatar.url }).where("id", "=", personUser.id).execute();
    const photos = (await call("getUserProfilePhotos", { user_id: chatId })).body.result;
    expect(photos.total_count).toBe(1);
    expect(photos.photos[0].map((p: any) => p.width)).toEqual([320, 400]);
    const file = (await call("getFile", { file_id: photos.photos[0][1].file_id })).body.result;
    expect((await fetch(`${server.url}/file/bot${token}/${file.file_path}`)).status).toBe(200);
  });

  test("menu button: default and per chat, shown on the person's bot card, opened with signed launch data", async () => {
    expect((await call("getChatMenuButton")).body.result).toEqual({ type: "commands" });
    const menuLaunch = () => person.post(`/api/social/messages/${cid}/web-app`);
    expect((await menuLaunch()).status).toBe(404);
    const app = { type: "web_app", text: "Open shop", web_app: { url: "https://shop.example.com/app" } };
    expect((await call("setChatMenuButton", { menu_button: app })).body.result).toBe(true);
    expect((await call("getChatMenuButton", { chat_id: chatId })).body.result).toEqual(app);
    expect((await person.get("/api/social/bots/backed_bot")).body.data.bot.menuButton).toEqual(app);
    const launch = new URL((await menuLaunch()).body.data.url);
    expect(launch.origin + launch.pathname).toBe("https://shop.example.com/app");
    const initData = new URLSearchParams(launch.hash.slice(1)).get("tgWebAppData")!;
    const verified = verifyWebAppData(token, initData);
    expect(verified?.chat_type).toBe("private");
    expect(JSON.parse(verified!.user!).id).toBe(chatId);
    expect(
      verifyWebAppData(
        token.replace(/.$/, (c) => (c === "a" ? "b" : "a")),
        initData,
      ),
    ).toBeNull();
    expect((await call("setChatMenuButton", { chat_id: chatId, menu_button: { type: "commands" } })).body.result).toBe(
      true,
    );
    expect((await person.get("/api/social/bots/backed_bot")).body.data.bot.menuButton).toEqual({ type: "commands" });
    expect((await menuLaunch()).status).toBe(404);
    expect((await call("getChatMenuButton")).body.result).toEqual(app);
    // `default` is answered back as set; people see the bot's default button in its place
    expect((await call("setChatMenuButton", { chat_id: chatId, menu_button: { type: "default" } })).body.result).toBe(
      true,
    );
    expect((await call("getChatMenuButton", { chat_id: chatId })).body.result).toEqual({ type: "default" });
    expect((await person.get("/api/social/bots/backed_bot")).body.data.bot.menuButton).toEqual(app);
    expect(
      (
        await call("setChatMenuButton", {
          menu_button: { type: "web_app", text: "x", web_app: { url: "http://plain.example.com" } },
        })
      ).body.description,
    ).toBe("Bad Request: BUTTON_URL_INVALID: web_app url must be an https URL");
  });

  test("editMessageMedia: a photo becomes a document by upload, then an audio by URL; a text message gets media; refusals", async () => {
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const png = await pngOf(server.app, 64, 48);
    const sent = await bot.api.sendPhoto(chatId, new InputFile(png, "first.png"), { caption: "first" });
    const edited = await bot.api.editMessageMedia(chatId, sent.message_id, {
      type: "document",
      media: new InputFile(new TextEncoder().encode("plain notes"), "notes.txt"),
      caption: "<b>now</b> a document",
      parse_mode: "HTML",
    });
    expect(edited).toMatchObject({
      message_id: sent.message_id,
      caption: "now a document",
      caption_entities: [{ type: "bold", offset: 0, length: 3 }],
      document: { file_name: "notes.txt" },
      edit_date: expect.any(Number),
    });
    expect((edited as { photo?: unknown }).photo).toBeUndefined();
    // the person sees the new file and caption
    const shown = (await history(person, cid)).find((m) => m.messageId === sent.message_id);
    expect(shown).toMatchObject({ content: "now a document", media: [{ type: "file", name: "notes.txt" }] });

    // by URL (a file of this instance is reused), as audio with what the bot says about it
    const audio = await bot.api.editMessageMedia(chatId, sent.message_id, {
      type: "audio",
      media: (edited as { document: { file_id: string } }).document.file_id,
      title: "Notes",
      performer: "Me",
    });
    expect(audio).toMatchObject({ audio: { title: "Notes", performer: "Me" } });
    expect((audio as Message).caption).toBeUndefined();

    // a text message is replaced with media, its text becoming nothing unless a caption is given
    const text = await send("words first");
    const photo = await call("editMessageMedia", {
      chat_id: chatId,
      message_id: text,
      media: { type: "photo", media: sizesOf(sent)[0]!.file_id, caption: "a picture now", has_spoiler: true },
    });
    expect(photo.body.result).toMatchObject({ caption: "a picture now", has_media_spoiler: true });
    expect(photo.body.result.text).toBeUndefined();

    const bad = async (params: Record<string, unknown>, description: string) =>
      expect((await call("editMessageMedia", { chat_id: chatId, ...params })).body).toEqual({
        ok: false,
        error_code: 400,
        description,
      });
    const same = sizesOf(sent)[0]!.file_id;
    await bad(
      { message_id: text, media: { type: "photo" } },
      "Bad Request: can't parse InputMedia: Media is not specified",
    );
    await bad({ message_id: text, media: "{oops" }, "Bad Request: can't parse input media JSON object");
    await bad({ message_id: text, media: [1] }, "Bad Request: can't parse InputMedia: expected an Object");
    await bad(
      { message_id: text, media: { type: "sticker", media: same } },
      'Bad Request: can\'t parse InputMedia: unsupported media type "sticker"',
    );
    await bad({ message_id: 999_999, media: { type: "photo", media: same } }, "Bad Request: message to edit not found");
    await bad(
      {
        message_id: text,
        media: {
          type: "photo",
          media: photo.body.result.photo.at(-1).file_id,
          caption: "a picture now",
          has_spoiler: true,
        },
      },
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
    const dice = (await call("sendDice", { chat_id: chatId })).body.result.message_id;
    await bad({ message_id: dice, media: { type: "photo", media: same } }, "Bad Request: message can't be edited");
    const mine = await person.post(`/api/social/messages/${cid}`, { content: "the person's" });
    await bad(
      { message_id: mine.body.data.message.messageId, media: { type: "photo", media: same } },
      "Bad Request: message can't be edited",
    );
  });

  test("setChatDescription: an administrator with can_change_info describes the group; getChat and the members see it", async () => {
    const group = await person.post("/api/social/groups", { title: "Described", members: ["backed_bot"] });
    const gid = group.body.data.conversationId as string;
    const groupId = -(
      await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", gid).executeTakeFirstOrThrow()
    ).id;
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    expect((await call("setChatDescription", { chat_id: groupId, description: "x" })).body).toEqual({
      ok: false,
      error_code: 403,
      description: "Forbidden: not enough rights to change chat info",
    });
    await person.post(`/api/social/groups/${gid}/members/backed_bot/promote`, { rights: { can_change_info: true } });
    expect(await bot.api.setChatDescription(groupId, "  A quiet place  ")).toBe(true);
    expect((await bot.api.getChat(groupId)).description).toBe("A quiet place");
    const seen = await person.get(`/api/social/messages/${gid}`);
    expect(seen.body.data.conversation.description).toBe("A quiet place");
    expect(
      (await call("setChatDescription", { chat_id: groupId, description: "A quiet place" })).body.description,
    ).toBe("Bad Request: chat description is not modified");
    expect(
      (await call("setChatDescription", { chat_id: groupId, description: "x".repeat(256) })).body.description,
    ).toBe("Bad Request: chat description is too long");
    // a private chat has no description (the wording of the other group-only methods)
    expect((await call("setChatDescription", { chat_id: chatId, description: "x" })).body.description).toBe(
      "Bad Request: chat member status can't be changed in private chats",
    );
    // without a description the field is left out, and people may change it too
    expect(await bot.api.setChatDescription(groupId)).toBe(true);
    expect((await bot.api.getChat(groupId)).description).toBeUndefined();
    const patched = await person.patch(`/api/social/groups/${gid}`, { description: "Ours again" });
    expect(patched.body.data.conversation.description).toBe("Ours again");
    const long = await person.patch(`/api/social/groups/${gid}`, { description: "y".repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.details.fieldErrors.description).toEqual(["must be at most 255 characters"]);
    expect((await bot.api.getChat(groupId)).description).toBe("Ours again");
  });

  test("families the product cannot back answer in the compatible API's words", async () => {
    expect((await call("answerInlineQuery", { inline_query_id: "1", results: [] })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
    });
    expect((await call("getStickerSet", { name: "animals" })).body.description).toBe("Bad Request: STICKERSET_INVALID");
    expect((await call("createForumTopic", { chat_id: chatId, name: "t" })).body.description).toBe(
      "Bad Request: the chat is not a forum",
    );
    expect((await call("sendGame", { chat_id: chatId, game_short_name: "g" })).body.description).toBe(
      "Bad Request: GAME_SHORT_NAME_INVALID",
    );
    expect((await call("getBusinessConnection", { business_connection_id: "b" })).body.description).toBe(
      "Bad Request: business connection not found",
    );
  });
});
