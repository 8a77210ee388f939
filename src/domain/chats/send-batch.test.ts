import { afterAll, beforeAll, expect, test } from "bun:test";
import { newCuid } from "../../lib/ids";
import { testsOnPostgres } from "../../testing/engine";
import { signedInClient } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import type { TestClient } from "../../testing/client";
import { queryRow, queryRows } from "../../testing/sql";
import { statementsDuring } from "../../testing/statements";
import { waitFor } from "../../testing/wait";
import { insertMessageRowIfAccessKept, sendBatchOf, type NewMessage } from "./message-row";

/*
 * Sends that come at the same moment: on PostgreSQL the plain ones are stored together, by one
 * statement (message-row.ts, sendBatchFor); on SQLite in one group commit. Either way each gets
 * its chat's next seq, the chat and every member's read mark and unread count follow, and a
 * repeated clientMessageId is stored once.
 */

let server: TestServer;
let alice: TestClient;
let aliceId: number;
const chats: { cid: string; id: number; otherId: number }[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const a = await signedInClient(server);
  alice = a.client;
  aliceId = a.user.id;
  for (let i = 0; i < 3; i++) {
    const other = await signedInClient(server);
    const cid = (await alice.post(`/api/social/users/${other.user.username}/message`, {})).body.data.conversationId;
    const id = (await queryRow<{ id: number }>(server.app.db, "SELECT id FROM conversations WHERE cuid = ?", cid))!.id;
    chats.push({ cid, id: Number(id), otherId: other.user.id });
  }
  // once every chat is made (which moves the access checks' stamp): the first send reads its
  // chat's check, the later ones find it kept
  for (const { cid } of chats)
    expect((await alice.post(`/api/social/messages/${cid}`, { content: "first" })).status).toBe(200);
});
afterAll(() => server.stop());

const chatState = async (chat: (typeof chats)[number]) => {
  const row = (await queryRow<{ last_seq: number }>(
    server.app.db,
    "SELECT last_seq FROM conversations WHERE id = ?",
    chat.id,
  ))!;
  const members = await queryRows<{ user_id: number; last_read_seq: number; unread_count: number }>(
    server.app.db,
    "SELECT user_id, last_read_seq, unread_count FROM conversation_members WHERE conversation_id = ?",
    chat.id,
  );
  const of = (userId: number) => members.find((m) => Number(m.user_id) === userId)!;
  return {
    lastSeq: Number(row.last_seq),
    senderRead: Number(of(aliceId).last_read_seq),
    senderUnread: Number(of(aliceId).unread_count),
    otherUnread: Number(of(chat.otherId).unread_count),
  };
};

test("sends to several chats at once each take their chat's next seq; the chats and the members follow", async () => {
  const before = await Promise.all(chats.map(chatState));
  const perChat = 4;
  // on a loaded machine the requests reach the server spread out: held, the batch gathers them
  // all, as a quiet machine's would within a turn
  const batch = testsOnPostgres() ? sendBatchOf(server.app.db) : undefined;
  const release = await batch?.hold(10_000);
  const sent = Promise.all(
    chats.flatMap((chat, c) =>
      Array.from({ length: perChat }, (_, i) =>
        alice.post(`/api/social/messages/${chat.cid}`, { content: `${c}:${i}` }),
      ),
    ),
  );
  if (batch) await waitFor(() => batch.waiting === chats.length * perChat, 10_000, "every send to wait in the batch");
  // counted from the release: each request's own reads came before it, one turn each when they
  // come spread out
  let answers: { status: number; body: any }[] = [];
  const statements = await statementsDuring(server.app.storage, async () => {
    release?.();
    answers = await sent;
  });
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  if (testsOnPostgres()) {
    // one statement per send would be 12 INSERTs; the sends of a moment share one
    expect(statements).toBeLessThan(chats.length * perChat);
  }
  for (const [c, chat] of chats.entries()) {
    const seqs = answers
      .slice(c * perChat, (c + 1) * perChat)
      .map((a) => a.body.data.message.messageId as number)
      .sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: perChat }, (_, i) => before[c]!.lastSeq + 1 + i));
    expect(await chatState(chat)).toEqual({
      lastSeq: before[c]!.lastSeq + perChat,
      senderRead: before[c]!.lastSeq + perChat,
      senderUnread: 0,
      otherUnread: before[c]!.otherUnread + perChat,
    });
    const history = (await alice.get(`/api/social/messages/${chat.cid}`)).body.data.messages;
    const shown = history.slice(0, perChat).map((m: { content: string }) => m.content);
    expect(shown.sort()).toEqual(Array.from({ length: perChat }, (_, i) => `${c}:${i}`));
  }
});

test("a clientMessageId sent twice at the same moment is stored once, and both answers name that message", async () => {
  const chat = chats[0]!;
  const before = await chatState(chat);
  const body = { content: "pressed twice", clientMessageId: "double-press" };
  const [one, two, other] = await Promise.all([
    alice.post(`/api/social/messages/${chat.cid}`, body),
    alice.post(`/api/social/messages/${chat.cid}`, body),
    alice.post(`/api/social/messages/${chat.cid}`, { content: "beside it" }),
  ]);
  expect([one.status, two.status, other.status]).toEqual([200, 200, 200]);
  expect(one.body.data.message.messageId).toBe(two.body.data.message.messageId);
  expect((await chatState(chat)).lastSeq).toBe(before.lastSeq + 2);
  const stored = await queryRows(
    server.app.db,
    "SELECT id FROM messages WHERE conversation_id = ? AND client_message_id = ?",
    chat.id,
    "double-press",
  );
  expect(stored.length).toBe(1);
});

test.skipIf(!testsOnPostgres())(
  "PostgreSQL: of the rows of one statement, one whose access stamp has moved and one whose chat is gone are not written",
  async () => {
    const stamp = Number(
      (await queryRow<{ stamp: number }>(server.app.db, "SELECT stamp FROM cache_stamps WHERE name = 'send-access'"))!
        .stamp,
    );
    const row = (conversationId: number, content: string): NewMessage => ({
      cuid: newCuid(),
      conversation_id: conversationId,
      sender_id: aliceId,
      kind: "user",
      content,
      entities: null,
      media: null,
      reply_to_seq: null,
      reply_markup: null,
      invoice: null,
      extra: null,
      system: null,
      forwarded_from: null,
      client_message_id: null,
      link_preview: null,
      created_at: server.clock.now(),
    });
    const before = await chatState(chats[1]!);
    // asked in one turn: one statement stores them
    const [kept, stale, gone, next] = await Promise.all([
      insertMessageRowIfAccessKept(server.app.db, row(chats[1]!.id, "kept"), stamp),
      insertMessageRowIfAccessKept(server.app.db, row(chats[1]!.id, "stale"), stamp - 1),
      insertMessageRowIfAccessKept(server.app.db, row(-1, "no such chat"), stamp),
      insertMessageRowIfAccessKept(server.app.db, row(chats[1]!.id, "kept too"), stamp),
    ]);
    expect([stale, gone]).toEqual([undefined, undefined]);
    expect([kept!.seq, next!.seq]).toEqual([before.lastSeq + 1, before.lastSeq + 2]);
    const contents = await queryRows<{ content: string }>(
      server.app.db,
      "SELECT content FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq",
      chats[1]!.id,
      before.lastSeq,
    );
    expect(contents.map((c) => c.content)).toEqual(["kept", "kept too"]);
  },
);
