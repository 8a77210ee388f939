import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import { queryRow, queryRows } from "../../testing/sql";
import { newCuid } from "../../lib/ids";

/*
 * A send moves its sender's read marker to the message it stores, in the insert itself (the
 * trigger messages_stored), whoever inserts: the Client API, the Bot API, SQL outside the app.
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

test("a read mark moved to the chat's newest message leaves the count at 0; anywhere else, or over a count above 0, it counts again", async () => {
  const seqs: number[] = [];
  for (const content of ["a", "b", "c"]) {
    const res = await alice.post(`/api/social/messages/${cid}`, { content });
    expect(res.status).toBe(200);
    seqs.push(res.body.data.message.messageId);
  }
  // bob reads up to the first of the three through the API: two left
  expect((await bob.post(`/api/social/messages/${cid}/read`, { messageId: seqs[0] })).status).toBe(200);
  expect((await marks())[bobId]).toEqual({ read: seqs[0], unread: 2 });
  // and to the newest
  expect((await bob.post(`/api/social/messages/${cid}/read`, { messageId: seqs[2] })).status).toBe(200);
  expect((await marks())[bobId]).toEqual({ read: seqs[2], unread: 0 });
  const setMark = (seq: number) =>
    queryRows(
      server.app.db,
      "UPDATE conversation_members SET last_read_seq = ? WHERE conversation_id = ? AND user_id = ?",
      seq,
      chatId,
      bobId,
    );
  // by SQL outside the app: back before the newest (a count of 0 over unread messages is counted again)
  await setMark(seqs[1]!);
  expect((await marks())[bobId]).toEqual({ read: seqs[1], unread: 1 });
  // to the newest with a count above 0: nothing after it, so 0
  await setMark(seqs[2]!);
  expect((await marks())[bobId]).toEqual({ read: seqs[2], unread: 0 });
  // bob's own send reads alice's messages before it too
  await setMark(seqs[0]!);
  expect((await marks())[bobId]!.unread).toBe(2);
  const own = await bob.post(`/api/social/messages/${cid}`, { content: "d" });
  expect((await marks())[bobId]).toEqual({ read: own.body.data.message.messageId, unread: 0 });
});

test("the migrations go down and up again, and the marks and counts come out the same either way", async () => {
  const { migrations } = await import("../../db/migrations");
  const oneTrigger = migrations["20261125040000_send_one_trigger"]!;
  const forward = migrations["20261205100000_read_mark_forward"]!;
  const history = migrations["20261205100400_chat_history_version"]!;
  const oneMemberUpdate = migrations["20261207100000_send_one_member_update"]!;
  const perStatement = migrations["20261208100000_send_statement_triggers"]!;
  const before = await marks();
  await server.app.db.transaction().execute(async (tx) => {
    await perStatement.down!(tx);
    await oneMemberUpdate.down!(tx);
    await history.down!(tx);
    await forward.down!(tx);
    await oneTrigger.down!(tx);
  });
  const one = await alice.post(`/api/social/messages/${cid}`, { content: "while down" });
  expect(await marks()).toEqual({
    [aliceId]: { read: one.body.data.message.messageId, unread: 0 },
    [bobId]: { read: before[bobId]!.read, unread: before[bobId]!.unread + 1 },
  });
  await server.app.db.transaction().execute(async (tx) => {
    await oneTrigger.up(tx);
    await forward.up(tx);
    await history.up(tx);
    await oneMemberUpdate.up(tx);
    await perStatement.up(tx);
  });
  const two = await bob.post(`/api/social/messages/${cid}`, { content: "up again" });
  expect(await marks()).toEqual({
    [aliceId]: { read: one.body.data.message.messageId, unread: 1 },
    [bobId]: { read: two.body.data.message.messageId, unread: 0 },
  });
});
