import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser } from "../../testing/fixtures";
import { openPrivateChat, sendMessage, type SendMessageInput } from "../../domain/chats";
import type { ConversationRow } from "../../domain/chats/table";
import type { UserRow } from "../../domain/users/table";
import { freshMessageShape, serializeMessage } from "./serialize";

/*
 * A message a send has just written is shaped without reading anything (freshMessageShape):
 * the same shape the general serializer reads and builds, for every kind of row a send writes;
 * none for a row that needs something read (a reply, a poll).
 */

let server: TestServer;
let sender: UserRow;
let chat: ConversationRow;

beforeAll(async () => {
  server = await startTestServer();
  sender = await makeUser(server.app);
  const other = await makeUser(server.app);
  chat = await openPrivateChat(server.app, sender.id, other.id);
});
afterAll(() => server.stop());

const send = (input: Omit<SendMessageInput, "conversationId" | "senderId">) =>
  sendMessage(server.app, { conversationId: chat.id, senderId: sender.id, ...input });

test("a just written message is shaped as the serializer shapes it, whatever the send wrote", async () => {
  const inputs: Array<Omit<SendMessageInput, "conversationId" | "senderId">> = [
    { content: "plain" },
    { content: "with an id", clientMessageId: "fresh-1" },
    { content: "bold text", entities: [{ type: "bold", offset: 0, length: 4 }] },
    { content: "", extra: { location: { latitude: 1.5, longitude: 2.5 } } },
    { content: "a caption", extra: { caption: "a caption", dice: { emoji: "🎲", value: 3 } } },
    { content: "forwarded", forwardedFrom: { sender: null, messageId: 1, date: "2026-01-01T00:00:00.000Z" } },
    { content: "buttons", replyMarkup: { inline_keyboard: [[{ text: "press", callback_data: "x" }]] } },
    { content: "", kind: "system", system: { type: "joined" } },
    { content: "an invoice", invoice: { title: "t", description: "d", currency: "XTR", prices: [] } },
  ];
  for (const input of inputs) {
    const row = await send(input);
    const fresh = freshMessageShape(chat, row, sender);
    expect(fresh).toBeDefined();
    expect(fresh).toEqual(await serializeMessage(server.app.db, chat, row));
    // the same bytes too (key order)
    expect(JSON.stringify(fresh)).toBe(JSON.stringify(await serializeMessage(server.app.db, chat, row)));
  }
});

test("a reply, a poll or another sender's row is left to the serializer", async () => {
  const first = await send({ content: "first" });
  expect(freshMessageShape(chat, await send({ content: "a reply", replyToSeq: first.seq }), sender)).toBeUndefined();
  const poll = { poll: { id: "p1", question: "q?", options: [{ text: "a" }, { text: "b" }], type: "regular" } };
  expect(freshMessageShape(chat, await send({ content: "", extra: poll }), sender)).toBeUndefined();
  const someoneElse = await makeUser(server.app);
  expect(freshMessageShape(chat, await send({ content: "mine" }), someoneElse)).toBeUndefined();
});
