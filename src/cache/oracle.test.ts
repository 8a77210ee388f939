import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { botWorld, createBotViaApi, openChat, type BotWorld } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";
import { postAs } from "../testing/posts";
import { CACHES, type RegisteredCache } from "./registry";
import { cacheStampsOf, type StampedCache } from "./stamps";

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
  // and the home feed's: a followed account's post with a poll, voted, liked and bookmarked; a mute
  const author = await quickPerson(world.server);
  expect((await world.person.post(`/api/social/users/${author.user.username}/follow`, {})).status).toBe(200);
  const post = await postAs(author.client, { content: "oracle", poll: { options: ["yes", "no"] } });
  expect((await world.person.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] })).status).toBe(200);
  for (const mark of ["like", "bookmark"])
    expect((await world.person.post(`/api/social/posts/${post.id}/${mark}`, {})).status).toBe(200);
  const muted = await quickPerson(world.server);
  expect((await world.person.post(`/api/social/users/${muted.user.username}/mute`, {})).status).toBe(200);
});
afterAll(() => world.server.stop());

class RolledBack extends Error {}

/** Whether WRITE, made in a transaction that is then rolled back, moves CACHE's stamp as the transaction sees it. */
async function movesStamp(cache: StampedCache, write: string): Promise<boolean> {
  const app = world.server.app;
  let moved = false;
  try {
    await app.db.transaction().execute(async (trx) => {
      const before = await cacheStampsOf(app).read(cache, trx);
      await sql.raw(write).execute(trx);
      moved = (await cacheStampsOf(app).read(cache, trx)) !== before;
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
  return moved;
}

const stamped = CACHES.filter((c): c is RegisteredCache & { name: StampedCache } => c.invalidation === "cache stamp");

test("every cache kept by stamp is checked here", () => {
  expect(stamped.map((c) => c.name).sort()).toEqual(["bot-identities", "feed-pages", "send-access", "sessions"]);
});

for (const cache of stamped)
  describe(`cache ${cache.name}`, () => {
    for (const table of cache.sources)
      test(`every kind of write to ${table} moves its stamp, but to the columns it ignores`, async () => {
        const db = world.server.app.db;
        const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} LIMIT 1`.execute(db);
        expect(rows.length).toBe(1);
        // the row by its id, or (a table keyed by several columns) by all its numbers
        const row = Object.entries(rows[0]!).filter(
          ([c, v]) => c === "id" || (!("id" in rows[0]!) && /^\d+$/.test(`${v}`)),
        );
        const where = row.map(([c, v]) => `"${c}" = ${v}`).join(" AND ");
        const ignored = cache.ignores?.[table] ?? [];
        const movedBy: Record<string, boolean> = {};
        for (const column of Object.keys(rows[0]!))
          movedBy[column] = await movesStamp(
            cache.name,
            `UPDATE ${table} SET "${column}" = "${column}" WHERE ${where}`,
          );
        movedBy["(delete)"] = await movesStamp(cache.name, `DELETE FROM ${table} WHERE ${where}`);
        const expected = Object.fromEntries(Object.keys(movedBy).map((column) => [column, !ignored.includes(column)]));
        expect(movedBy).toEqual(expected);
      });
  });
