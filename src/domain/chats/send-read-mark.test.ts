import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import { queryRow, queryRows } from "../../testing/sql";
import { newCuid } from "../../lib/ids";

/*
 * A send moves its sender's read marker to the message it stores, in the insert itself (the
 * trigger messages_read_own), whoever inserts: the Client API, the Bot API, SQL outside the app.
 */

let server: TestServer;
let alice: TestClient;
let bob: TestClient;
let aliceId: number;
let bobId: number;
let cid: string;
let chatId: number;

beforeAll(async () => {
  server = await startTestServer();
  const a = await signedInClient(server);
  const b = await signedInClient(server);
  alice = a.client;
  bob = b.client;
  aliceId = a.user.id;
  bobId = b.user.id;
  const opened = await alice.post(`/api/social/users/${b.user.username}/message`, {});
  expect(opened.status).toBe(200);
  cid = opened.body.data.conversationId;
  chatId = (await queryRow<{ id: number }>(server.app.db, "SELECT id FROM conversations WHERE cuid = ?", cid))!.id;
});
afterAll(() => server.stop());

const marks = async () =>
  Object.fromEntries(
    (
      await queryRows<{ user_id: number; last_read_seq: number; unread_count: number }>(
        server.app.db,
        "SELECT user_id, last_read_seq, unread_count FROM conversation_members WHERE conversation_id = ?",
        chatId,
      )
    ).map((r) => [Number(r.user_id), { read: Number(r.last_read_seq), unread: Number(r.unread_count) }]),
  );

/** The chat as READER's list shows it: their read mark and unread count. */
const listed = async (reader: TestClient) => {
  const res = await reader.get("/api/social/messages");
  const chat = res.body.data.conversations.find((c: { id: string }) => c.id === cid);
  return { read: chat.lastReadMessageId, unread: chat.unreadCount };
};

test("each send moves only its sender's read mark to the message, and the other party counts it unread", async () => {
  const first = await alice.post(`/api/social/messages/${cid}`, { content: "one" });
  expect(first.status).toBe(200);
  const seq = first.body.data.message.messageId;
  expect(await marks()).toEqual({ [aliceId]: { read: seq, unread: 0 }, [bobId]: { read: 0, unread: 1 } });
  expect(await listed(alice)).toEqual({ read: seq, unread: 0 });

  const reply = await bob.post(`/api/social/messages/${cid}`, { content: "two" });
  const replySeq = reply.body.data.message.messageId;
  expect(replySeq).toBe(seq + 1);
  // bob's reply reads everything up to it; alice now has one unread
  expect(await marks()).toEqual({ [aliceId]: { read: seq, unread: 1 }, [bobId]: { read: replySeq, unread: 0 } });
  expect(await listed(bob)).toEqual({ read: replySeq, unread: 0 });
});

test("a message inserted by SQL outside the app moves its sender's mark forward, never back", async () => {
  const before = await marks();
  const top = (await queryRow<{ last_seq: number }>(
    server.app.db,
    "SELECT last_seq FROM conversations WHERE id = ?",
    chatId,
  ))!;
  const insert = (seq: number, senderId: number) =>
    queryRows(
      server.app.db,
      "INSERT INTO messages (cuid, conversation_id, seq, sender_id, kind, content, created_at) VALUES (?, ?, ?, ?, 'user', 'by SQL', ?)",
      newCuid(),
      chatId,
      seq,
      senderId,
      Date.now(),
    );
  await insert(Number(top.last_seq) + 10, bobId);
  expect((await marks())[bobId]!.read).toBe(Number(top.last_seq) + 10);
  // an older seq (an import of old messages) leaves the mark where it is
  await insert(Number(top.last_seq) + 5, bobId);
  expect((await marks())[bobId]!.read).toBe(Number(top.last_seq) + 10);
  // alice's mark is not hers to move by bob's messages; both are unread for her
  expect((await marks())[aliceId]).toEqual({ read: before[aliceId]!.read, unread: before[aliceId]!.unread + 2 });
});
