import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import { rerunMigrations } from "../../testing/migrations";
import type { TestClient } from "../../testing/client";
import { queryRow, queryRows } from "../../testing/sql";
import { newCuid } from "../../lib/ids";

/*
 * A message takes its chat's next seq with its row (message-row.ts), and the chat follows the
 * newest row (trigger messages_stored): its last seq, last message time and activity, which
 * the chat list's order copies to every member. Whoever inserts: the Client API, the Bot API,
 * SQL outside the app.
 */

let server: TestServer;
let alice: TestClient;
let bob: TestClient;
let bobId: number;
let cid: string;
let chatId: number;
let otherCid: string;

beforeAll(async () => {
  server = await startTestServer();
  const a = await signedInClient(server);
  const b = await signedInClient(server);
  const c = await signedInClient(server);
  alice = a.client;
  bob = b.client;
  bobId = b.user.id;
  const opened = await alice.post(`/api/social/users/${b.user.username}/message`, {});
  expect(opened.status).toBe(200);
  cid = opened.body.data.conversationId;
  chatId = (await queryRow<{ id: number }>(server.app.db, "SELECT id FROM conversations WHERE cuid = ?", cid))!.id;
  const other = await alice.post(`/api/social/users/${c.user.username}/message`, {});
  otherCid = other.body.data.conversationId;
});
afterAll(() => server.stop());

const chat = async () => {
  const row = (await queryRow<{ last_seq: number; last_message_at: number; activity_at: number; updated_at: number }>(
    server.app.db,
    "SELECT last_seq, last_message_at, activity_at, updated_at FROM conversations WHERE id = ?",
    chatId,
  ))!;
  return {
    lastSeq: Number(row.last_seq),
    lastMessageAt: Number(row.last_message_at),
    activityAt: Number(row.activity_at),
    updatedAt: Number(row.updated_at),
  };
};

/** The chats in READER's list, in its order. */
const order = async (reader: TestClient) =>
  (await reader.get("/api/social/messages")).body.data.conversations.map((c: { id: string }) => c.id);

test("each send takes the chat's next seq and moves the chat's last message time and activity to it", async () => {
  const seqs: number[] = [];
  for (const [who, content] of [
    [alice, "one"],
    [bob, "two"],
    [alice, "three"],
  ] as const) {
    server.clock.advance(1_000);
    const res = await who.post(`/api/social/messages/${cid}`, { content });
    expect(res.status).toBe(200);
    seqs.push(res.body.data.message.messageId);
    const at = Date.parse(res.body.data.message.createdAt);
    expect(await chat()).toEqual({ lastSeq: seqs.at(-1)!, lastMessageAt: at, activityAt: at, updatedAt: at });
  }
  expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2]);
  // the other chat gets a message later, then this one again: each send puts its chat first
  server.clock.advance(1_000);
  expect((await alice.post(`/api/social/messages/${otherCid}`, { content: "elsewhere" })).status).toBe(200);
  expect((await order(alice)).slice(0, 2)).toEqual([otherCid, cid]);
  server.clock.advance(1_000);
  expect((await bob.post(`/api/social/messages/${cid}`, { content: "back" })).status).toBe(200);
  expect((await order(alice)).slice(0, 2)).toEqual([cid, otherCid]);
  // the history shows the messages in their seqs
  const history = await alice.get(`/api/social/messages/${cid}`);
  expect(history.body.data.messages.map((m: { content: string }) => m.content).slice(0, 4)).toEqual([
    "back",
    "three",
    "two",
    "one",
  ]);
});

test("a message inserted by SQL outside the app past the chat's last seq moves the chat on; an older one does not", async () => {
  const before = await chat();
  const insert = (seq: number, at: number) =>
    queryRows(
      server.app.db,
      "INSERT INTO messages (cuid, conversation_id, seq, sender_id, kind, content, created_at) VALUES (?, ?, ?, ?, 'user', 'by SQL', ?)",
      newCuid(),
      chatId,
      seq,
      bobId,
      at,
    );
  const at = before.activityAt + 5_000;
  await insert(before.lastSeq + 3, at);
  expect(await chat()).toEqual({ lastSeq: before.lastSeq + 3, lastMessageAt: at, activityAt: at, updatedAt: at });
  // an import of an older message leaves the chat where it is
  await insert(before.lastSeq + 1, at + 1_000);
  expect(await chat()).toEqual({ lastSeq: before.lastSeq + 3, lastMessageAt: at, activityAt: at, updatedAt: at });
  // the next send takes the seq after the newest
  const next = await alice.post(`/api/social/messages/${cid}`, { content: "after SQL" });
  expect(next.status).toBe(200);
  expect(next.body.data.message.messageId).toBe(before.lastSeq + 4);
  expect((await chat()).lastSeq).toBe(before.lastSeq + 4);
});

test("the Bot API's sends take seqs the same way", async () => {
  const { botWorld, botCall, createBotViaApi } = await import("../../testing/botapi");
  const world = await botWorld();
  try {
    const token = await createBotViaApi(world.owner, "seq_bot");
    await world.person.post(`/api/social/users/seq_bot/message`, {});
    const ids: number[] = [];
    for (const text of ["a", "b"]) {
      const sent = await botCall(world.server.url, token, "sendMessage", { chat_id: world.personUser.id, text });
      expect(sent.body.ok).toBe(true);
      ids.push(sent.body.result.message_id);
    }
    expect(ids[1]).toBe(ids[0]! + 1);
  } finally {
    await world.server.stop();
  }
});

test("the migrations go down and up again", async () => {
  // with the later one that folded that trigger into the only one of a stored message
  await rerunMigrations(server.app.db, [
    "20261125030000_send_seq_in_insert",
    "20261125040000_send_one_trigger",
    // which makes the stored message's trigger again, with the chat's history_version
    "20261205100400_chat_history_version",
    // which makes it again, writing the memberships in one UPDATE
    "20261207100000_send_one_member_update",
    // and which makes it (on PostgreSQL) once per statement
    "20261208100000_send_statement_triggers",
  ]);
  const before = await chat();
  server.clock.advance(1_000);
  const res = await alice.post(`/api/social/messages/${cid}`, { content: "after down and up" });
  expect(res.status).toBe(200);
  expect(res.body.data.message.messageId).toBe(before.lastSeq + 1);
  const at = Date.parse(res.body.data.message.createdAt);
  expect(at).toBeGreaterThan(before.activityAt);
  expect(await chat()).toEqual({ lastSeq: before.lastSeq + 1, lastMessageAt: at, activityAt: at, updatedAt: at });
});
