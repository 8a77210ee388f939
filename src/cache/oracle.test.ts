import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { botWorld, createBotViaApi, openChat, type BotWorld } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";
import { postAs } from "../testing/posts";
import { feedQuery, freshComments, freshFeed, freshProfile, type Answer } from "../testing/fresh-answers";
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

/*
 * The caches the Client API's feed, comment and profile answers are made of, checked by those
 * answers from the registry: for each such cache, each table it is read from and each kind of
 * write (an UPDATE of each column of a row the answers show, by SQL as an operator or another
 * node would write, then that column set back; a copy of the row INSERTed; the row DELETEd), the
 * answers of the benchmark rows the cache serves, each asked twice (the second from what the
 * first kept), equal the ones read afresh with nothing kept. Run on PostgreSQL too.
 */

type Person = Awaited<ReturnType<typeof quickPerson>>;

/** What a scene's answers are read from: people, a post with a poll, a comment with a reply, marks, a block and a mute. */
interface Scene {
  author: Person;
  viewer: Person;
  post: string;
  comment: string;
  postRow: number;
  commentRow: number;
}

/** A fresh scene: the viewer follows the author, votes in the poll, likes and bookmarks the post, blocks one account and mutes another (both posting). */
async function scene(): Promise<Scene> {
  const server = world.server;
  const [author, viewer, blocked, muted] = [
    await quickPerson(server),
    await quickPerson(server),
    await quickPerson(server),
    await quickPerson(server),
  ];
  const ok = (res: { status: number }) => expect(res.status).toBe(200);
  ok(await viewer.client.post(`/api/social/users/${author.user.username}/follow`, {}));
  const post = await postAs(author.client, { content: "scene", poll: { options: ["yes", "no"] } });
  ok(await viewer.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] }));
  for (const mark of ["like", "bookmark"]) ok(await viewer.client.post(`/api/social/posts/${post.id}/${mark}`, {}));
  const comment = (await author.client.post(`/api/social/posts/${post.id}/comments`, { content: "a comment" })).body
    .data.comment;
  ok(await viewer.client.post(`/api/social/posts/${post.id}/comments`, { content: "a reply", replyToId: comment.id }));
  for (const [who, what] of [
    [blocked, "block"],
    [muted, "mute"],
  ] as const) {
    await postAs(who.client, `by one the viewer will ${what}`);
    ok(await viewer.client.post(`/api/social/users/${who.user.username}/${what}`, {}));
  }
  const db = world.server.app.db;
  const rowOf = async (table: "posts" | "comments", cuid: string) =>
    Number((await db.selectFrom(table).select("id").where("cuid", "=", cuid).executeTakeFirstOrThrow()).id);
  return {
    author,
    viewer,
    post: post.id,
    comment: comment.id,
    postRow: await rowOf("posts", post.id),
    commentRow: await rowOf("comments", comment.id),
  };
}

/** Which row of each source table a scene's answers show, as an SQL condition. */
const SHOWN_ROWS: Record<string, (s: Scene) => string> = {
  posts: (s) => `id = ${s.postRow}`,
  polls: (s) => `post_id = ${s.postRow}`,
  poll_options: (s) => `poll_id = (SELECT id FROM polls WHERE post_id = ${s.postRow}) AND position = 0`,
  poll_votes: (s) => `poll_id = (SELECT id FROM polls WHERE post_id = ${s.postRow})`,
  users: (s) => `id = ${s.author.user.id}`,
  comments: (s) => `id = ${s.commentRow}`,
  comment_threads: (s) => `post_id = ${s.postRow} AND parent_id = 0`,
  feed_entries: (s) => `owner_id = ${s.viewer.user.id} AND post_id = ${s.postRow}`,
  post_likes: (s) => `post_id = ${s.postRow}`,
  post_bookmarks: (s) => `post_id = ${s.postRow}`,
  blocks: (s) => `blocker_id = ${s.viewer.user.id}`,
  mutes: (s) => `muter_id = ${s.viewer.user.id}`,
};

/** An answer a benchmark row stands for: the viewer's, served and read afresh. */
interface Asked {
  path: (s: Scene) => string;
  fresh: (s: Scene) => Promise<Answer>;
}

const db = () => world.server.app.db;
const feed = (following: boolean): Asked => ({
  path: () => `/api/social/feed?${feedQuery({ following, limit: 20 })}`,
  fresh: async (s) => [200, (await freshFeed(db(), s.viewer.user.id, { following, limit: 20 })).text],
});

/** The answers of each benchmark row the caches checked here serve. */
const ASKED: Record<string, Asked[]> = {
  [CACHES.find((c) => c.name === "feed-pages")!.bench[0]!]: [feed(false), feed(true)],
  "GET /api/social/posts/{id}/comments (N)": [
    {
      path: (s) => `/api/social/posts/${s.post}/comments`,
      fresh: (s) => freshComments(db(), s.viewer.user.id, s.post, null),
    },
    {
      path: (s) => `/api/social/comments/${s.comment}/replies`,
      fresh: (s) => freshComments(db(), s.viewer.user.id, s.post, s.comment),
    },
  ],
  "GET /api/social/users/{username} (profile)": [
    {
      path: (s) => `/api/social/users/${s.author.user.username}`,
      fresh: (s) => freshProfile(db(), s.viewer.user.id, s.author.user.username),
    },
  ],
};

/** Each answer the scene's viewer is asked for, twice, equals the one read afresh. */
async function expectFresh(s: Scene, asked: Asked[], what: string): Promise<void> {
  for (const a of asked) {
    // a fresh read that fails (a column no longer valid) is the server's error
    const want = await a.fresh(s).catch((): Answer => [500, ""]);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${world.server.url}${a.path(s)}`, {
        headers: { cookie: s.viewer.client.cookieHeader() },
      });
      const got: Answer = [res.status, res.status === 200 ? await res.text() : ""];
      expect([what, a.path(s), i, ...got]).toEqual([what, a.path(s), i, ...want]);
    }
  }
}

/** An SQL value of V (as the row held it). */
const literal = (v: unknown) =>
  v === null
    ? "NULL"
    : typeof v === "boolean"
      ? String(v)
      : typeof v === "number"
        ? String(v)
        : `'${String(v).replaceAll("'", "''")}'`;

/** A change of COLUMN of type TYPE holding VALUE: numbers up by one, texts a space longer, flags flipped, NULLs set. */
function changed(column: string, type: string, value: unknown): string {
  const c = `"${column}"`;
  if (/bool/i.test(type)) return value === null ? "true" : `NOT ${c}`;
  if (/int|real|float|double|numeric/i.test(type)) return value === null ? "1" : `${c} + 1`;
  // JSON stays JSON: a value with a space after it, or null written out
  return value === null ? "'null'" : `${c} || ' '`;
}

const answered = CACHES.filter((c) => c.bench.some((row) => row in ASKED) && c.invalidation !== "write epoch");

test("every cache the feed, comment and profile answers are made of is checked here by those answers", () => {
  expect(answered.map((c) => c.name).sort()).toEqual([
    "authors",
    "comment-cores",
    "comment-pages",
    "feed-pages",
    "post-cores",
    "profiles",
  ]);
});

for (const cache of answered)
  describe(`cache ${cache.name}, by its answers`, () => {
    const asked = cache.bench.flatMap((row) => ASKED[row] ?? []);
    for (const table of cache.sources)
      test(`every kind of write to ${table} leaves the answers equal to a fresh read`, async () => {
        const s = await scene();
        const where = SHOWN_ROWS[table]!(s);
        const run = (statement: string) => sql.raw(statement).execute(db());
        const [row] = (
          await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} WHERE ${sql.raw(where)}`.execute(db())
        ).rows;
        expect(row).toBeDefined();
        const types = new Map(
          (await db().introspection.getTables())
            .find((t) => t.name === table)!
            .columns.map((c) => [c.name, c.dataType]),
        );
        // the row by its id, or (a table keyed by several columns) by the condition that found it
        const key = "id" in row! ? `id = ${row!.id}` : where;
        await expectFresh(s, asked, "start");
        let written = 0;
        // a row's id is never written (its references would break): every other column is
        for (const [column, value] of Object.entries(row!)) {
          if (column === "id") continue;
          try {
            await run(`UPDATE ${table} SET "${column}" = ${changed(column, types.get(column)!, value)} WHERE ${key}`);
          } catch {
            // refused by a constraint (a reference, a unique key): no answer can change
            continue;
          }
          written++;
          await expectFresh(s, asked, `${table}.${column} changed`);
          const back = "id" in row! ? key : `${where.replace(`${column} = `, `${column} - 1 = `)}`;
          await run(`UPDATE ${table} SET "${column}" = ${literal(value)} WHERE ${back}`);
          await expectFresh(s, asked, `${table}.${column} set back`);
        }
        expect(written).toBeGreaterThan(0);
        // a copy of the row (its texts a space longer, so unique keys may take it), where the schema takes one
        const copied = Object.entries(row!).filter(([c]) => c !== "id");
        try {
          await run(
            `INSERT INTO ${table} (${copied.map(([c]) => `"${c}"`).join(", ")}) VALUES (${copied
              .map(([, v]) => (typeof v === "string" ? `${literal(v)} || ' '` : literal(v)))
              .join(", ")})`,
          );
        } catch {
          // refused by a unique key or a check: the row is one of a kind
        }
        await expectFresh(s, asked, `a copy of the ${table} row inserted`);
        await run(`DELETE FROM ${table} WHERE ${key}`);
        await expectFresh(s, asked, `the ${table} row deleted`);
      });
  });
