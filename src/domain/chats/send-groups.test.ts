import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { botCall, createBotViaApi, openChat } from "../../testing/botapi";
import { withInsertFault } from "../../testing/faults";
import { openPrivateChat } from "./conversations";
import { sendMessage } from "./messages";

/*
 * Sends share commits (db/group-commit.ts): the sends queued in one turn of the event loop
 * commit together, each in a savepoint. These check what a sender can observe of that.
 */

let server: TestServer;
const groups: number[] = [];
beforeAll(async () => {
  server = await startTestServer();
  server.app.storage.onWriteGroup((size) => groups.push(size));
});
afterAll(() => server.stop());

test("concurrent sends commit as one group; a refused send fails alone and a racing repeat answers the stored message", async () => {
  const { app } = server;
  const [a, b] = [(await quickPerson(server)).user, (await quickPerson(server)).user];
  const chat = await openPrivateChat(app, a.id, b.id);
  const send = (content: string, clientMessageId: string | null = null) =>
    sendMessage(app, { conversationId: chat.id, senderId: a.id, content, clientMessageId }).then(
      (row) => ({ ok: true as const, row }),
      (err: Error) => ({ ok: false as const, error: err.message }),
    );
  const outcomes = await withInsertFault(app.db, "messages WHEN NEW.content = 'refused'", async () => {
    groups.length = 0;
    return Promise.all([
      send("first"),
      send("twin", "same-id"),
      send("refused"),
      // the repeat's insert fails on the unique index inside the group; it answers its twin
      send("twin", "same-id"),
      send("last"),
    ]);
  });
  // PostgreSQL commits each transaction alone (its writers run concurrently): the rest holds on both
  if (app.storage.engine === "sqlite") expect(groups).toEqual([5]);
  const [first, twin, refused, repeat, last] = outcomes;
  expect(refused).toEqual({ ok: false, error: "injected fault" });
  if (!first!.ok || !twin!.ok || !repeat!.ok || !last!.ok)
    throw new Error(`a neighbour failed: ${JSON.stringify(outcomes)}`);
  expect(repeat.row.id).toBe(twin.row.id);
  // one SQLite group keeps the call order; concurrent PostgreSQL transactions take their turns
  // in any order. On both, the refused send left no gap.
  const inOrder = app.storage.engine === "sqlite";
  const seqs = [first.row.seq, twin.row.seq, last.row.seq];
  const sorted = [...seqs].sort((x, y) => x - y);
  expect(inOrder ? seqs : sorted).toEqual([sorted[0]!, sorted[0]! + 1, sorted[0]! + 2]);
  const stored = await app.db
    .selectFrom("messages")
    .select("content")
    .where("conversation_id", "=", chat.id)
    .orderBy("seq")
    .execute();
  const contents = stored.map((m) => m.content);
  expect(inOrder ? contents : contents.toSorted()).toEqual(
    inOrder ? ["first", "twin", "last"] : ["first", "last", "twin"],
  );
});

test("over HTTP, concurrent sends of people and bots are each answered with their own stored message", async () => {
  const owner = await quickPerson(server);
  const person = await quickPerson(server);
  const token = await createBotViaApi(owner.client, "group_send_bot");
  const cid = await openChat(person.client, "group_send_bot");
  await botCall(server.url, token, "getUpdates", { offset: -1 });
  groups.length = 0;
  const n = 12;
  const sends = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      i % 2 === 0
        ? person.client
            .post(`/api/social/messages/${cid}`, { content: `person ${i}` })
            .then((r) => ({ status: r.status, seq: r.body.data?.message?.messageId as number, text: `person ${i}` }))
        : botCall(server.url, token, "sendMessage", { chat_id: person.user.id, text: `bot ${i}` }).then((r) => ({
            status: r.status,
            seq: r.body.result?.message_id as number,
            text: `bot ${i}`,
          })),
    ),
  );
  expect(sends.map((s) => s.status)).toEqual(Array(n).fill(200));
  // every send took a seq of its own, and the history shows each under the seq it was answered with
  expect(new Set(sends.map((s) => s.seq)).size).toBe(n);
  const history = await person.client.get(`/api/social/messages/${cid}?limit=50`);
  const shown = new Map(
    (history.body.data.messages as { messageId: number; content: string }[]).map((m) => [m.messageId, m.content]),
  );
  for (const s of sends) expect(shown.get(s.seq)).toBe(s.text);
  // the bot got each of the person's messages once
  const updates = (await botCall(server.url, token, "getUpdates", { timeout: 0 })).body.result as {
    message: { text: string };
  }[];
  expect(updates.map((u) => u.message.text).sort()).toEqual(
    sends
      .filter((s) => s.text.startsWith("person"))
      .map((s) => s.text)
      .sort(),
  );
  expect(groups.reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(n);
});
