import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { botWorld, createBotViaApi, openChat, type BotWorld } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";
import { openPrivateChat, sendMessage } from "../domain/chats";
import type { Db } from "../db";
import { CACHES, type RegisteredCache } from "./registry";
import { cacheStampsOf, type StampedCache } from "./stamps";
import { readChatListStamp } from "./chat-list-stamps";

/*
 * The caches kept by stamp, checked from the registry: an entry is used only while its cache's
 * stamp is the one it was read under, so a cached answer equals a fresh read exactly when every
 * write that may change one moves the stamp. For each such cache, each table it is read from and
 * each kind of write (an UPDATE of each column, a DELETE), the write is made in a transaction
 * rolled back afterwards, with the stamp read before and after it in that transaction: it must
 * move, unless the write sets only a column the registry says the cache ignores. (An INSERT's
 * trigger is held by src/cache/registry.test.ts.) Run on PostgreSQL too (scripts/test-postgres.ts).
 */

let world: BotWorld;
beforeAll(async () => {
  world = await botWorld();
  // a row in each table the stamped caches are read from: a chat with its members, a bot, a block, a banned device
  await createBotViaApi(world.owner, "oracle_bot");
  await openChat(world.person, "oracle_bot");
  const friend = await quickPerson(world.server);
  expect((await world.person.post(`/api/social/users/${friend.user.username}/block`, {})).status).toBe(200);
  await world.server.app.db
    .insertInto("banned_devices")
    .values({ device_id: "oracle-device", user_id: friend.user.id, created_at: Date.now() })
    .execute();
});
afterAll(() => world.server.stop());

class RolledBack extends Error {}

/**
 * Whether WRITE, made in a transaction that is then rolled back, moves the stamp STAMP reads as
 * the transaction sees it (after PREPARE, made in the same transaction).
 */
async function moves(
  stamp: (trx: Db) => Promise<number>,
  write: (trx: Db) => Promise<unknown>,
  prepare?: (trx: Db) => Promise<unknown>,
): Promise<boolean> {
  let moved = false;
  try {
    await world.server.app.db.transaction().execute(async (trx) => {
      await prepare?.(trx);
      const before = await stamp(trx);
      await write(trx);
      moved = (await stamp(trx)) !== before;
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
  return moved;
}

/** Whether WRITE, made in a transaction that is then rolled back, moves CACHE's stamp as the transaction sees it. */
const movesStamp = (cache: StampedCache, write: string): Promise<boolean> =>
  moves(
    (trx) => cacheStampsOf(world.server.app).read(cache, trx),
    (trx) => sql.raw(write).execute(trx),
  );

const stamped = CACHES.filter((c): c is RegisteredCache & { name: StampedCache } => c.invalidation === "cache stamp");

test("every cache kept by stamp is checked here", () => {
  expect(stamped.map((c) => c.name).sort()).toEqual(["bot-identities", "send-access", "sessions"]);
});

for (const cache of stamped)
  describe(`cache ${cache.name}`, () => {
    for (const table of cache.sources)
      test(`every kind of write to ${table} moves its stamp, but to the columns it ignores`, async () => {
        const db = world.server.app.db;
        const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} LIMIT 1`.execute(db);
        expect(rows.length).toBe(1);
        const id = rows[0]!.id as number;
        const ignored = cache.ignores?.[table] ?? [];
        const movedBy: Record<string, boolean> = {};
        for (const column of Object.keys(rows[0]!))
          movedBy[column] = await movesStamp(
            cache.name,
            `UPDATE ${table} SET "${column}" = "${column}" WHERE id = ${id}`,
          );
        movedBy["(delete)"] = await movesStamp(cache.name, `DELETE FROM ${table} WHERE id = ${id}`);
        const expected = Object.fromEntries(Object.keys(movedBy).map((column) => [column, !ignored.includes(column)]));
        expect(movedBy).toEqual(expected);
      });
  });

/*
 * The caches kept by a reader's stamp, checked from the registry in the same way: an answer is
 * used only while its reader's stamp is the one it was read under, so it equals a fresh read
 * exactly when every write that may change what the reader is shown moves the stamp. For each
 * table such a cache is read from, a row the reader is shown (ROWS) is written every way in a
 * rolled-back transaction: an UPDATE of each column, a DELETE, and an INSERT of it again after
 * its DELETE; each must move the reader's stamp, unless the write sets only a column the registry
 * says the cache ignores. src/clientapi/chats/list-answers.test.ts checks the answers themselves
 * against fresh reads after writes by the API and by SQL.
 */
const byReader = CACHES.filter((c) => c.invalidation === "reader stamp");

test("every cache kept by a reader's stamp is checked here", () => {
  expect(byReader.map((c) => c.name)).toEqual(["chat-list-answers"]);
});

/** The reader whose chat list is checked, and the rows of each source table it shows. */
let reader: { id: number; rows: Record<string, Record<string, unknown>> };
const READER_STAMPS: Record<string, (trx: Db, viewer: number) => Promise<number>> = {
  "chat-list-answers": readChatListStamp,
};

const SHOWN_THROUGH_MEMBERSHIP = ["conversations", "users"];

/** The primary key's columns of TABLE (an id, else the message and account a row of a message's belongs to). */
const keyOf = (table: string, row: Record<string, unknown>): Record<string, unknown> =>
  "id" in row ? { id: row.id } : { message_id: row.message_id, user_id: row.user_id };

beforeAll(async () => {
  const app = world.server.app;
  const [viewer, friend] = [await quickPerson(world.server), await quickPerson(world.server)];
  // the viewer's chat and messages: the friend's account is then named by nothing but its membership, so it can be removed
  const chat = await openPrivateChat(app, viewer.user.id, friend.user.id);
  const first = await sendMessage(app, { conversationId: chat.id, senderId: viewer.user.id, content: "first" });
  const last = await sendMessage(app, { conversationId: chat.id, senderId: viewer.user.id, content: "last" });
  const now = Date.now();
  await app.db.insertInto("message_hidden").values({ message_id: first.id, user_id: viewer.user.id }).execute();
  await app.db
    .insertInto("message_reactions")
    .values({ message_id: last.id, user_id: viewer.user.id, emoji: "👍", created_at: now })
    .execute();
  await app.db
    .insertInto("message_poll_votes")
    .values({ message_id: last.id, user_id: viewer.user.id, option_index: 0, created_at: now })
    .execute();
  const one = async (table: string, where: Record<string, unknown>) => {
    const conditions = Object.entries(where).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} WHERE ${sql.join(
      conditions,
      sql` AND `,
    )}`.execute(app.db);
    expect([table, rows.length]).toEqual([table, 1]);
    return rows[0]!;
  };
  const v = viewer.user.id;
  reader = {
    id: v,
    rows: {
      conversations: await one("conversations", { id: chat.id }),
      conversation_members: await one("conversation_members", { conversation_id: chat.id, user_id: v }),
      messages: await one("messages", { id: last.id }),
      message_hidden: await one("message_hidden", { user_id: v }),
      message_reactions: await one("message_reactions", { user_id: v }),
      message_poll_votes: await one("message_poll_votes", { user_id: v }),
      // the chat's other party: the list shows their profile
      users: await one("users", { id: friend.user.id }),
    },
  };
});

for (const cache of byReader)
  describe(`cache ${cache.name}`, () => {
    for (const table of cache.sources)
      test(`every kind of write to a row of ${table} its reader is shown moves their stamp, but to the columns it ignores`, async () => {
        const row = reader.rows[table];
        expect(row).toBeDefined();
        const stamp = (trx: Db) => READER_STAMPS[cache.name]!(trx, reader.id);
        const key = keyOf(table, row!);
        const matching = () =>
          sql.join(
            Object.entries(key).map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
            sql` AND `,
          );
        const ignored = cache.ignores?.[table] ?? [];
        const movedBy: Record<string, boolean> = {};
        for (const column of Object.keys(row!))
          movedBy[column] = await moves(stamp, (trx) =>
            sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${sql.ref(column)} WHERE ${matching()}`.execute(
              trx,
            ),
          );
        const remove = (trx: Db) => sql`DELETE FROM ${sql.table(table)} WHERE ${matching()}`.execute(trx);
        movedBy["(delete)"] = await moves(stamp, remove);
        movedBy["(insert)"] = await moves(
          stamp,
          (trx) =>
            trx
              .insertInto(table as "users")
              .values(row as never)
              .execute(),
          remove,
        );
        const expected = Object.fromEntries(Object.keys(movedBy).map((column) => [column, !ignored.includes(column)]));
        // a new chat or account is shown to nobody until a membership names it, whose insert moves the stamp
        if (SHOWN_THROUGH_MEMBERSHIP.includes(table)) expected["(insert)"] = false;
        expect(movedBy).toEqual(expected);
      });
  });
