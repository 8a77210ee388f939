import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import { botCall, botWorld, createBotViaApi, history, openChat, type BotWorld } from "../testing/botapi";
import { botApiUserId } from "../domain/bots/ids";

/*
 * sendMessage to a person by id reads the person and their chat with the bot in the send's
 * transaction: the refusals still come in the order the compatible API gives them (the chat's
 * before the text's), a refused send stores nothing, and a person never met gets the chat opened.
 */

let world: BotWorld;
let token: string;
let botUserId: number;
let cid: string;
beforeAll(async () => {
  world = await botWorld();
  token = await createBotViaApi(world.owner, "person_send_bot");
  cid = await openChat(world.person, "person_send_bot");
  botUserId = (await botCall(world.server.url, token, "getMe")).body.result.id;
});
afterAll(() => world.server.stop());

const send = (params: Record<string, unknown>) => botCall(world.server.url, token, "sendMessage", params);
const refusal = async (params: Record<string, unknown>) => {
  const res = await send(params);
  return { status: res.status, description: res.body.description };
};
const texts = async (client: TestClient, chat: string) =>
  (await history(client, chat)).map((m: { content: string }) => m.content);

test("the chat's refusals come before the text's", async () => {
  const empty = { text: " " };
  expect(await refusal({ chat_id: 987654321, ...empty })).toEqual({
    status: 400,
    description: "Bad Request: chat not found",
  });
  expect(await refusal({ chat_id: botUserId, ...empty })).toEqual({
    status: 400,
    description: "Bad Request: chat not found",
  });
  const other = await createBotViaApi(world.owner, "person_send_other_bot");
  const otherId = (await botCall(world.server.url, other, "getMe")).body.result.id;
  expect(await refusal({ chat_id: otherId, ...empty })).toEqual({
    status: 403,
    description: "Forbidden: bot can't send messages to bots",
  });
  // the chat is fine: now the text is refused
  expect(await refusal({ chat_id: world.personUser.id, ...empty })).toEqual({
    status: 400,
    description: "Bad Request: message text is empty",
  });
});

test("a send refused for its text or markup stores nothing; the next one is stored once", async () => {
  const before = await texts(world.person, cid);
  expect((await refusal({ chat_id: world.personUser.id, text: "<b>open", parse_mode: "HTML" })).status).toBe(400);
  expect(
    (await refusal({ chat_id: world.personUser.id, text: "ok", reply_markup: { inline_keyboard: "no" } })).status,
  ).toBe(400);
  expect(await texts(world.person, cid)).toEqual(before);
  const sent = await send({ chat_id: String(world.personUser.id), text: "stored once" });
  expect(sent.status).toBe(200);
  expect(sent.body.result.chat).toMatchObject({ id: botApiUserId(world.personUser.id), type: "private" });
  expect(await texts(world.person, cid)).toEqual([...before, "stored once"]);
});

test("a person the bot never met gets the chat opened by the first send; a blocked bot is refused and stores nothing", async () => {
  const stranger = await signedInClient(world.server);
  const first = await send({ chat_id: stranger.user.id, text: "first" });
  expect(first.status).toBe(200);
  const second = await send({ chat_id: stranger.user.id, text: "second" });
  expect(second.body.result.message_id).toBe(first.body.result.message_id + 1);
  const chat = await openChat(stranger.client, "person_send_bot");
  expect(await texts(stranger.client, chat)).toEqual(["first", "second"]);

  expect((await stranger.client.post("/api/social/users/person_send_bot/block")).status).toBe(200);
  expect(await refusal({ chat_id: stranger.user.id, text: "third" })).toEqual({
    status: 403,
    description: "Forbidden: bot was blocked by the user",
  });
  expect(await texts(stranger.client, chat)).toEqual(["first", "second"]);
});
