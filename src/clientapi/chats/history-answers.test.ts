import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { inProcessApp, type InProcessApp } from "../../testing/in-process";
import { quickPerson } from "../../testing/fixtures";
import { fewestStatements } from "../../testing/statements";
import { freshHistory } from "../../testing/fresh-answers";
import { TEA_POLL } from "../../testing/chats";
import { openPrivateChat, sendMessage } from "../../domain/chats";
import { newCuid } from "../../lib/ids";

/*
 * A chat's history page is kept (history-answers.ts) and asked again with one statement, the
 * chat with its other party, read each time. What src/cache/oracle.test.ts
 * does not reach is here: a message stored below the newest, a poll that closes by time, and a
 * reader who hid a message.
 */

let p: InProcessApp;
let reader: Awaited<ReturnType<typeof quickPerson>>;
let writer: Awaited<ReturnType<typeof quickPerson>>;
let chat: { id: number; cuid: string };

beforeAll(async () => {
  p = await inProcessApp();
  reader = await quickPerson(p);
  writer = await quickPerson(p);
  chat = await openPrivateChat(p.app, writer.user.id, reader.user.id);
  for (let i = 0; i < 5; i++)
    await sendMessage(p.app, { conversationId: chat.id, senderId: writer.user.id, content: `message ${i}` });
});
afterAll(() => p.stop());

/** Statements PostgreSQL runs besides SQLite's (it keeps no session in memory without reading its stamp). */
const onPostgres = (n: number) => (p.app.storage.engine === "postgres" ? n : 0);

const page = async (query = "") => {
  const res = await reader.client.get(`/api/social/messages/${chat.cuid}${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};

/** The page as served, byte for byte, and as read afresh. */
const servedAndFresh = async () => {
  const res = await p.fetch(`/api/social/messages/${chat.cuid}`, { headers: { cookie: reader.client.cookieHeader() } });
  return [await res.text(), (await freshHistory(p.app, reader.user.id, chat.cuid))[1]];
};

test("a page asked again is the one kept, one statement, and equal to a fresh read", async () => {
  const first = await page();
  expect(first.messages.map((m: { content: string }) => m.content)).toEqual([4, 3, 2, 1, 0].map((i) => `message ${i}`));
  const ask = () => reader.client.get(`/api/social/messages/${chat.cuid}`);
  const kept = await fewestStatements(p.app.storage, ask);
  // the chat with the reader's membership and the other party with their read mark, in one
  // statement (PostgreSQL reads the session's stamp too)
  expect(kept).toBe(1 + onPostgres(1));
  const [served, fresh] = await servedAndFresh();
  expect(served).toBe(fresh);
  // a send makes a new page: the new message in it at once
  await sendMessage(p.app, { conversationId: chat.id, senderId: writer.user.id, content: "message 5" });
  expect((await page()).messages[0].content).toBe("message 5");
});

test("a message stored below the newest (an import by SQL) shows in the next page asked", async () => {
  const before = await page();
  const newest = before.messages[0].messageId as number;
  const insert = (seq: number, content: string) =>
    sql`INSERT INTO messages (cuid, conversation_id, seq, sender_id, kind, content, created_at)
      VALUES (${newCuid()}, ${chat.id}, ${seq}, ${writer.user.id}, 'user', ${content}, ${Date.now()})`.execute(
      p.app.db,
    );
  await insert(newest + 10, "far ahead");
  expect((await page()).messages[0].content).toBe("far ahead");
  // below the newest: neither last_seq nor any message's version moves, history_version does
  await insert(newest + 5, "imported");
  const after = await page();
  expect(after.messages.slice(0, 2).map((m: { content: string }) => m.content)).toEqual(["far ahead", "imported"]);
  const [served, fresh] = await servedAndFresh();
  expect(served).toBe(fresh);
});

test("a poll that closes by time shows closed once its time has come, though nothing was written", async () => {
  const closeDate = Math.floor(p.clock.now() / 1000) + 60;
  await sendMessage(p.app, {
    conversationId: chat.id,
    senderId: writer.user.id,
    content: "",
    extra: { poll: { ...TEA_POLL, close_date: closeDate } },
  });
  expect((await page()).messages[0].poll.isClosed).toBe(false);
  expect((await page()).messages[0].poll.isClosed).toBe(false);
  p.clock.advance(61_000);
  expect((await page()).messages[0].poll.isClosed).toBe(true);
});

test("a reader who hid a message reads every page afresh, without it", async () => {
  const shown = await page();
  const hidden = shown.messages[1];
  const res = await reader.client.delete(`/api/social/messages/${chat.cuid}/${hidden.messageId}`);
  expect(res.status).toBe(200);
  const after = await page();
  expect(after.messages.map((m: { id: string }) => m.id)).not.toContain(hidden.id);
  const ask = () => reader.client.get(`/api/social/messages/${chat.cuid}`);
  // the messages are read with each page (the reader's hides are theirs alone): the chat with
  // the other party, the page, the poll's tallies (two) and the reader's vote
  expect(await fewestStatements(p.app.storage, ask)).toBe(5 + onPostgres(1));
  const [served, fresh] = await servedAndFresh();
  expect(served).toBe(fresh);
});
