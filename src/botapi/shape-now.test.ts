import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { makeUser } from "../testing/fixtures";
import { botCall } from "../testing/botapi";
import { openPrivateChat, sendMessage, type SendMessageInput } from "../domain/chats";
import { createBot } from "../domain/bots/service";
import { botApiUserId } from "../domain/bots/ids";
import type { ConversationRow, MessageRow } from "../domain/chats/table";
import type { UserRow } from "../domain/users/table";
import { messageShapeNow, omitAbsent, serializeMessage, type ChatView } from "./serializers";

/*
 * A message whose shape needs nothing read (its author is the bot or the person of the view,
 * no reply, no forward, no poll) is shaped at once (messageShapeNow): the same object and the
 * same bytes the general serializer reads and builds; none for a row that needs a read.
 */

let server: TestServer;
let person: UserRow;
let botUser: UserRow;
let token: string;
let chat: ConversationRow;
let view: ChatView;

beforeAll(async () => {
  server = await startTestServer();
  person = await makeUser(server.app);
  const created = await createBot(server.app, { ownerId: person.id, username: "shape_now_bot", name: "Shape Now" });
  botUser = created.user;
  token = created.token;
  chat = await openPrivateChat(server.app, person.id, botUser.id);
  view = { conversation: chat, other: person, self: botUser };
});
afterAll(() => server.stop());

const send = (senderId: number, input: Omit<SendMessageInput, "conversationId" | "senderId">) =>
  sendMessage(server.app, { conversationId: chat.id, senderId, ...input });

/** The row as stored now (edits by SQL included). */
const stored = async (row: MessageRow): Promise<MessageRow> =>
  (await server.app.db.selectFrom("messages").selectAll().where("id", "=", row.id).executeTakeFirst())!;

async function expectSameShape(row: MessageRow): Promise<void> {
  const now = messageShapeNow(view, row);
  expect(now).toBeDefined();
  const general = await serializeMessage(server.app.db, view, row);
  expect(now).toEqual(general);
  // the same bytes as answered (absent fields dropped, key order kept)
  expect(JSON.stringify(omitAbsent(now))).toBe(JSON.stringify(omitAbsent(general)));
}

test("a message that needs nothing read is shaped at once as the serializer shapes it", async () => {
  const image = { type: "image" as const, url: "/media/a.png", mime: "image/png", sizeBytes: 68, width: 1, height: 1 };
  const file = { type: "file" as const, url: "/media/b.pdf", name: "b.pdf", mime: "application/pdf", sizeBytes: 9 };
  const inputs: Array<[number, Omit<SendMessageInput, "conversationId" | "senderId">]> = [
    [botUser.id, { content: "plain" }],
    [botUser.id, { content: "see https://example.com, @someone and /start" }],
    [botUser.id, { content: "bold text", entities: [{ type: "bold", offset: 0, length: 4 }] }],
    [botUser.id, { content: "", extra: { location: { latitude: 1.5, longitude: 2.5 } } }],
    [
      botUser.id,
      {
        content: "",
        extra: {
          location: { latitude: 1, longitude: 2 },
          venue: { location: { latitude: 1, longitude: 2 }, title: "t", address: "a" },
        },
      },
    ],
    [botUser.id, { content: "", extra: { dice: { emoji: "🎲", value: 3 } } }],
    [botUser.id, { content: "a photo", media: [image], extra: { has_spoiler: true, media_group_id: "g1" } }],
    [botUser.id, { content: "", media: [file], extra: { audio: { performer: "p", title: "t", duration: 3 } } }],
    [botUser.id, { content: "buttons", replyMarkup: { inline_keyboard: [[{ text: "press", callback_data: "x" }]] } }],
    [botUser.id, { content: "an invoice", invoice: { title: "t", description: "d", currency: "XTR", totalAmount: 5 } }],
    [person.id, { content: "the person writes https://example.org" }],
    [person.id, { content: "with an id", clientMessageId: "shape-now-1" }],
  ];
  for (const [senderId, input] of inputs) await expectSameShape(await send(senderId, input));
  // an edited message, as a later read sees it
  const edited = await send(botUser.id, { content: "before" });
  await server.app.db
    .updateTable("messages")
    .set({ content: "after", edited_at: Date.now() })
    .where("id", "=", edited.id)
    .execute();
  await expectSameShape(await stored(edited));
});

test("a reply, a forward, a poll or an author outside the view is left to the serializer", async () => {
  const first = await send(botUser.id, { content: "first" });
  expect(messageShapeNow(view, await send(botUser.id, { content: "a reply", replyToSeq: first.seq }))).toBeUndefined();
  const forwarded = { sender: { id: person.cuid }, messageId: 1, date: "2026-01-01T00:00:00.000Z" };
  expect(messageShapeNow(view, await send(botUser.id, { content: "fwd", forwardedFrom: forwarded }))).toBeUndefined();
  const poll = { poll: { id: "p1", question: "q?", options: [{ text: "a" }, { text: "b" }], type: "regular" } };
  expect(messageShapeNow(view, await send(botUser.id, { content: "", extra: poll }))).toBeUndefined();
  const row = await send(person.id, { content: "mine" });
  expect(messageShapeNow({ conversation: chat, other: null, self: botUser }, row)).toBeUndefined();
});

test("sendMessage answers the stored message as the serializer shapes it, byte for byte", async () => {
  for (const text of ["hello", "a link https://example.com and @" + person.username]) {
    const res = await fetch(`${server.url}/bot${token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: botApiUserId(person.id), text }),
    });
    const answer = await res.text();
    const sent = JSON.parse(answer).result;
    const row = (await server.app.db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "=", chat.id)
      .where("seq", "=", sent.message_id)
      .executeTakeFirst())!;
    const general = omitAbsent(await serializeMessage(server.app.db, view, row));
    expect(answer).toBe(JSON.stringify({ ok: true, result: general }));
  }
  // a reply still goes through the serializer (its reply_to_message read)
  const first = (await botCall(server.url, token, "sendMessage", { chat_id: botApiUserId(person.id), text: "one" }))
    .body;
  const reply = await botCall(server.url, token, "sendMessage", {
    chat_id: botApiUserId(person.id),
    text: "two",
    reply_parameters: { message_id: first.result.message_id },
  });
  expect(reply.body.result.reply_to_message.message_id).toBe(first.result.message_id);
});
