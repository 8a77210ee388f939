import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Insertable } from "kysely";
import { newCuid } from "../../lib/ids";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import type { TestClient } from "../../testing/client";
import { createGroup, openPrivateChat } from "./conversations";
import { sendMessage } from "./messages";
import type { MessagesTable } from "./table";

/*
 * What storing messages changes besides their rows, when one INSERT stores several: the chat's
 * newest seq, last message, activity and history version, and each member's read mark, unread
 * count and activity. SQLite runs its trigger once per row; PostgreSQL once per statement
 * (migration 20261208100000_send_statement_triggers). The expected figures are worked out row by
 * row, in seq order, so both engines must give the same.
 */

let server: TestServer;
type Person = Awaited<ReturnType<typeof quickPerson>>;
let alice: Person;
let bob: Person;
let carol: Person;

beforeAll(async () => {
  server = await startTestServer();
  [alice, bob, carol] = [await quickPerson(server), await quickPerson(server), await quickPerson(server)];
});
afterAll(() => server.stop());

const row = (
  conversationId: number,
  sender: Person,
  seq: number,
  content: string,
  deleted = false,
): Insertable<MessagesTable> => {
  const at = server.clock.now() + seq;
  return {
    cuid: newCuid(),
    conversation_id: conversationId,
    seq,
    sender_id: sender.user.id,
    kind: "user",
    content,
    created_at: at,
    deleted_at: deleted ? at : null,
  };
};

const chatOf = (id: number) =>
  server.app.db
    .selectFrom("conversations")
    .select(["last_seq", "last_message_id", "last_message_at", "activity_at", "history_version"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();

const membersOf = async (id: number) => {
  const rows = await server.app.db
    .selectFrom("conversation_members")
    .select(["user_id", "last_read_seq", "unread_count", "activity_at"])
    .where("conversation_id", "=", id)
    .execute();
  return Object.fromEntries(
    rows.map((r) => [
      Number(r.user_id),
      { read: Number(r.last_read_seq), unread: Number(r.unread_count), activity: Number(r.activity_at) },
    ]),
  );
};

const idOf = async (conversationId: number, seq: number) =>
  Number(
    (
      await server.app.db
        .selectFrom("messages")
        .select("id")
        .where("conversation_id", "=", conversationId)
        .where("seq", "=", seq)
        .executeTakeFirstOrThrow()
    ).id,
  );

/** A new private chat of FROM and TO with one message from FROM; its id and last seq. */
const chatWithOneMessage = async (from: Person, to: Person) => {
  const chat = await openPrivateChat(server.app, from.user.id, to.user.id);
  await sendMessage(server.app, { conversationId: chat.id, senderId: from.user.id, content: "first" });
  return { id: chat.id, L: Number((await chatOf(chat.id)).last_seq) };
};

/** ROWS stored by one INSERT. */
const store = (rows: Insertable<MessagesTable>[]) => server.app.db.insertInto("messages").values(rows).execute();

const searchFor = async (client: TestClient, q: string) => {
  const res = await client.get(`/api/social/search?${new URLSearchParams({ q, type: "messages" })}`);
  expect(res.status).toBe(200);
  return (res.body.data.messages as { content: string }[]).map((m) => m.content).sort();
};

test("one INSERT of several rows in two chats: the chats and every member come out as row by row", async () => {
  const group = await createGroup(server.app, alice.user.id, "Seabirds", [bob.user.id, carol.user.id]);
  const pair = await openPrivateChat(server.app, alice.user.id, carol.user.id);
  await sendMessage(server.app, { conversationId: group.id, senderId: alice.user.id, content: "hello" });
  await sendMessage(server.app, { conversationId: pair.id, senderId: carol.user.id, content: "hi" });
  const L = Number((await chatOf(group.id)).last_seq);
  const P = Number((await chatOf(pair.id)).last_seq);
  const groupBefore = await membersOf(group.id);
  const historyBefore = Number((await chatOf(group.id)).history_version);

  const rows = [
    row(group.id, alice, L + 1, "petrel one"),
    row(group.id, bob, L + 2, "petrel two"),
    row(pair.id, alice, P + 1, "petrel pair"),
    row(group.id, bob, L + 3, "petrel three"),
    row(group.id, alice, L + 4, "petrel gone", true),
    row(pair.id, alice, P + 2, "petrel pair again"),
    row(group.id, bob, L + 5, "petrel five"),
  ];
  await store(rows);

  const newest = rows[6]!.created_at;
  expect(await chatOf(group.id)).toMatchObject({
    last_seq: L + 5,
    last_message_id: await idOf(group.id, L + 5),
    last_message_at: newest,
    activity_at: newest,
    history_version: historyBefore,
  });
  // alice read up to her newest row (deleted or not) and has bob's L+5 unread; bob sent the
  // newest; carol sent none and has every undeleted one unread
  expect(await membersOf(group.id)).toEqual({
    [alice.user.id]: { read: L + 4, unread: 1, activity: newest },
    [bob.user.id]: { read: L + 5, unread: 0, activity: newest },
    [carol.user.id]: {
      read: groupBefore[carol.user.id]!.read,
      unread: groupBefore[carol.user.id]!.unread + 4,
      activity: newest,
    },
  });
  const pairNewest = rows[5]!.created_at;
  expect(await chatOf(pair.id)).toMatchObject({ last_seq: P + 2, last_message_id: await idOf(pair.id, P + 2) });
  expect(await membersOf(pair.id)).toEqual({
    [alice.user.id]: { read: P + 2, unread: 0, activity: pairNewest },
    [carol.user.id]: { read: P, unread: 2, activity: pairNewest },
  });
  // every undeleted row is found by search, the deleted one never
  expect(await searchFor(carol.client, "petrel")).toEqual([
    "petrel five",
    "petrel one",
    "petrel pair",
    "petrel pair again",
    "petrel three",
    "petrel two",
  ]);
});

test("the newest row deleted: the last message is the newest undeleted one", async () => {
  const { id, L } = await chatWithOneMessage(bob, carol);
  await store([row(id, carol, L + 1, "kept"), row(id, bob, L + 2, "gone", true)]);
  expect(await chatOf(id)).toMatchObject({ last_seq: L + 2, last_message_id: await idOf(id, L + 1) });
  expect(await membersOf(id)).toMatchObject({
    [bob.user.id]: { read: L + 2, unread: 0 },
    [carol.user.id]: { read: L + 1, unread: 0 },
  });
});

test("rows stored below the chat's newest raise its history version, leave its newest alone and are recounted", async () => {
  const { id, L } = await chatWithOneMessage(alice, bob);
  // a gap below the newest, as an import leaves
  await store([row(id, bob, L + 1, "two"), row(id, bob, L + 10, "eleven")]);
  const before = await chatOf(id);
  expect(await membersOf(id)).toMatchObject({ [alice.user.id]: { read: L, unread: 2 } });

  await store([row(id, alice, L + 5, "six"), row(id, bob, L + 6, "seven")]);
  expect(await chatOf(id)).toEqual({ ...before, history_version: Number(before.history_version) + 2 });
  // alice's mark moves to her row; of bob's rows above it, L+6 and L+10 count
  expect(await membersOf(id)).toEqual({
    [alice.user.id]: { read: L + 5, unread: 2, activity: Number(before.activity_at) },
    [bob.user.id]: { read: L + 10, unread: 0, activity: Number(before.activity_at) },
  });
});
