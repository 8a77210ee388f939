import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { BOT_API_ID_BASE, botApiUserId } from "../domain/bots/ids";
import { findBotByUserId } from "../domain/bots/service";
import { up as moveMentionIds } from "../db/migrations/20261124000100_bot_api_ids";
import { botCall, botWorld, createBotViaApi, openChat } from "../testing/botapi";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;

beforeAll(async () => void ({ server, owner, person, personUser } = await botWorld()));
afterAll(() => server.stop());

describe("Bot API ids", () => {
  test("tokens, getMe, from and private chat ids are large, stable ids; python-telegram-bot's token check passes", async () => {
    const token = await createBotViaApi(owner, "ids_shape_bot", "Ids");
    const prefix = token.split(":")[0]!;
    // python-telegram-bot refuses a token unless the part before the colon has at least 3 digits
    expect(prefix).toMatch(/^\d{3,}$/);
    const id = Number(prefix);
    expect(id).toBeGreaterThan(2 ** 32);
    expect(Number.isSafeInteger(id)).toBe(true);
    const me = (await botCall(server.url, token, "getMe")).body.result;
    expect(me.id).toBe(id);

    await openChat(person, "ids_shape_bot", "x");
    const update = (await botCall(server.url, token, "getUpdates")).body.result[0];
    const personId = botApiUserId(personUser.id);
    expect(update.message.from.id).toBe(personId);
    expect(update.message.chat.id).toBe(personId);
    expect(personId).not.toBe(id);
    const sent = await botCall(server.url, token, "sendMessage", { chat_id: update.message.chat.id, text: "hi" });
    expect(sent.body.result.chat.id).toBe(personId);
    expect(sent.body.result.from.id).toBe(id);
    expect(
      (await botCall(server.url, token, "getChatMember", { chat_id: personId, user_id: personId })).body.result.user.id,
    ).toBe(personId);

    const group = await person.post("/api/social/groups", { title: "Ids", members: ["ids_shape_bot"] });
    expect(group.status).toBe(200);
    const joined = (await botCall(server.url, token, "getUpdates", { offset: update.update_id + 1 })).body.result.find(
      (u: any) => u.my_chat_member,
    );
    expect(joined.my_chat_member.chat.id).toBeLessThan(0);
    expect(joined.my_chat_member.from.id).toBe(personId);
  });

  test("tokens and chat ids from before public ids (row ids) keep working until the token is reissued", async () => {
    const token = await createBotViaApi(owner, "ids_legacy_bot", "Legacy");
    const bot = (await findBotByUserId(server.app.db, Number(token.split(":")[0]) - BOT_API_ID_BASE))!;
    const legacyToken = `${bot.user.id}:${token.split(":")[1]}`;
    const me = await botCall(server.url, legacyToken, "getMe");
    expect(me.status).toBe(200);
    expect(me.body.result.id).toBe(botApiUserId(bot.user.id));
    await openChat(person, "ids_legacy_bot");
    // a chat id stored by a bot before the change: the person's row id
    const sent = await botCall(server.url, legacyToken, "sendMessage", { chat_id: personUser.id, text: "still here" });
    expect(sent.status).toBe(200);
    expect(sent.body.result.chat.id).toBe(botApiUserId(personUser.id));

    const reissued = await owner.post(`/api/bots/ids_legacy_bot/token`, {});
    expect(reissued.status).toBe(200);
    expect((await botCall(server.url, legacyToken, "getMe")).status).toBe(401);
    expect((await botCall(server.url, token, "getMe")).status).toBe(401);
  });

  test("the migration moves the ids of mentions stored before it", async () => {
    const token = await createBotViaApi(owner, "ids_mention_bot", "Mention");
    await openChat(person, "ids_mention_bot");
    const personId = botApiUserId(personUser.id);
    const sent = await botCall(server.url, token, "sendMessage", {
      chat_id: personId,
      text: "hi you",
      entities: [{ type: "text_mention", offset: 3, length: 3, user: { id: personId } }],
    });
    expect(sent.body.result.entities[0].user.id).toBe(personId);
    const row = await server.app.db
      .selectFrom("messages")
      .select(["id", "entities"])
      .where("content", "=", "hi you")
      .executeTakeFirstOrThrow();
    // as an older version stored it: the row id
    await server.app.db
      .updateTable("messages")
      .set({ entities: row.entities!.replace(String(personId), String(personUser.id)) })
      .where("id", "=", row.id)
      .execute();
    await moveMentionIds(server.app.db);
    const moved = await server.app.db
      .selectFrom("messages")
      .select("entities")
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(moved.entities!)[0].user.id).toBe(personId);
  });
});
