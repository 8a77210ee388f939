import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { botWorld, createBotViaApi, openChat, type BotWorld } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";
import { postAs } from "../testing/posts";
import { TEA_POLL } from "../testing/chats";
import {
  feedQuery,
  freshChatList,
  freshComments,
  freshBookmarks,
  freshFeed,
  freshFollowPage,
  freshHashtagPosts,
  freshHistory,
  freshNotifications,
  freshPostLikers,
  freshProfile,
  type Answer,
} from "../testing/fresh-answers";
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
  // and the home feed's: a followed account's post with a poll, voted, liked and bookmarked; a mute
  const author = await quickPerson(world.server);
  expect((await world.person.post(`/api/social/users/${author.user.username}/follow`, {})).status).toBe(200);
  const post = await postAs(author.client, { content: "oracle #oracle", poll: { options: ["yes", "no"] } });
  expect((await world.person.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] })).status).toBe(200);
  for (const mark of ["like", "bookmark"])
    expect((await world.person.post(`/api/social/posts/${post.id}/${mark}`, {})).status).toBe(200);
  const muted = await quickPerson(world.server);
  expect((await world.person.post(`/api/social/users/${muted.user.username}/mute`, {})).status).toBe(200);
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
  expect(stamped.map((c) => c.name).sort()).toEqual([
    "bot-identities",
    "feed-pages",
    "follow-pages",
    "send-access",
    "sessions",
  ]);
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

test("stamps read outside a transaction see every write committed before; on PostgreSQL the reads of one turn share a statement", async () => {
  const { app } = world.server;
  const stamps = cacheStampsOf(app);
  const user = world.personUser.id;
  const before = await stamps.read("sessions", app.db);
  await sql`UPDATE users SET bio = 'oracle' WHERE id = ${user}`.execute(app.db);
  try {
    expect(await stamps.read("sessions", app.db)).not.toBe(before);
  } finally {
    await sql`UPDATE users SET bio = ${world.personUser.bio} WHERE id = ${user}`.execute(app.db);
  }
  const statements = app.storage.statements();
  const names: StampedCache[] = ["sessions", "send-access", "bot-identities", "feed-pages", "follow-pages"];
  const read = await Promise.all(names.map((name) => stamps.read(name, app.db)));
  expect(read.every((stamp) => Number.isFinite(stamp))).toBe(true);
  // SQLite reads them through a connection of its own, PostgreSQL in one statement for the turn
  expect(app.storage.statements() - statements).toBe(app.storage.engine === "postgres" ? 1 : 0);
});

/*
 * The caches the Client API's feed, following, comment, profile and chat list answers are made of, checked by those
 * answers from the registry: for each such cache, each table it is read from and each kind of
 * write (an UPDATE of each column of a row the answers show, by SQL as an operator or another
 * node would write, then that column set back; a copy of the row INSERTed; the row DELETEd), the
 * answers of the benchmark rows the cache serves, each asked twice (the second from what the
 * first kept), equal the ones read afresh with nothing kept. Run on PostgreSQL too.
 */

type Person = Awaited<ReturnType<typeof quickPerson>>;

/** What a scene's answers are read from: people, a post with a poll, a comment with a reply, marks, a block and a mute, a chat. */
interface Scene {
  author: Person;
  viewer: Person;
  post: string;
  comment: string;
  postRow: number;
  commentRow: number;
  chatRow: number;
  chat: string;
  messageRow: number;
}

/**
 * A fresh scene: the viewer follows the author, votes in the poll, likes and bookmarks the post,
 * blocks one account and mutes another (both posting); the author writes to the viewer, last a
 * poll, in which the viewer votes and to which the viewer reacts.
 */
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
  // the viewer's notifications: the author follows them and mentions them in the post and the comment
  ok(await author.client.post(`/api/social/users/${viewer.user.username}/follow`, {}));
  const mention = `@${viewer.user.username}`;
  const post = await postAs(author.client, { content: `scene #scene ${mention}`, poll: { options: ["yes", "no"] } });
  ok(await viewer.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] }));
  for (const mark of ["like", "bookmark"]) ok(await viewer.client.post(`/api/social/posts/${post.id}/${mark}`, {}));
  const comment = (
    await author.client.post(`/api/social/posts/${post.id}/comments`, { content: `a comment ${mention}` })
  ).body.data.comment;
  ok(await viewer.client.post(`/api/social/posts/${post.id}/comments`, { content: "a reply", replyToId: comment.id }));
  // a report, by the viewer, of someone else's post (its notification goes to the admins)
  ok(await viewer.client.post("/api/social/reports", { target: { type: "post", id: post.id }, reason: "spam" }));
  for (const [who, what] of [
    [blocked, "block"],
    [muted, "mute"],
  ] as const) {
    await postAs(who.client, `by one the viewer will ${what}`);
    ok(await viewer.client.post(`/api/social/users/${who.user.username}/${what}`, {}));
  }
  const app = world.server.app;
  const chat = await openPrivateChat(app, author.user.id, viewer.user.id);
  const hello = await sendMessage(app, { conversationId: chat.id, senderId: author.user.id, content: "hello" });
  // the author deleted their first message for themselves (the viewer still sees it)
  await app.db.insertInto("message_hidden").values({ message_id: hello.id, user_id: author.user.id }).execute();
  const last = await sendMessage(app, {
    conversationId: chat.id,
    senderId: author.user.id,
    content: "",
    extra: { poll: TEA_POLL },
  });
  ok(await viewer.client.post(`/api/social/messages/${chat.cuid}/${last.seq}/poll/vote`, { options: [0] }));
  ok(await viewer.client.post(`/api/social/messages/${chat.cuid}/${last.seq}/reactions`, { emoji: "👍" }));
  const db = app.db;
  const rowOf = async (table: "posts" | "comments", cuid: string) =>
    Number((await db.selectFrom(table).select("id").where("cuid", "=", cuid).executeTakeFirstOrThrow()).id);
  return {
    author,
    viewer,
    post: post.id,
    comment: comment.id,
    postRow: await rowOf("posts", post.id),
    commentRow: await rowOf("comments", comment.id),
    chatRow: chat.id,
    chat: chat.cuid,
    messageRow: last.id,
  };
}

/** Which row of each source table a scene's answers show, as an SQL condition. */
const SHOWN_ROWS: Record<string, (s: Scene) => string> = {
  posts: (s) => `id = ${s.postRow}`,
  polls: (s) => `post_id = ${s.postRow}`,
  poll_options: (s) => `poll_id = (SELECT id FROM polls WHERE post_id = ${s.postRow}) AND position = 0`,
  poll_votes: (s) => `poll_id = (SELECT id FROM polls WHERE post_id = ${s.postRow})`,
  users: (s) => `id = ${s.author.user.id}`,
  conversations: (s) => `id = ${s.chatRow}`,
  conversation_members: (s) => `conversation_id = ${s.chatRow} AND user_id = ${s.viewer.user.id}`,
  messages: (s) => `id = ${s.messageRow}`,
  message_reactions: (s) => `message_id = ${s.messageRow}`,
  message_poll_votes: (s) => `message_id = ${s.messageRow}`,
  message_hidden: (s) => `user_id = ${s.author.user.id}`,
  comments: (s) => `id = ${s.commentRow}`,
  comment_threads: (s) => `post_id = ${s.postRow} AND parent_id = 0`,
  feed_entries: (s) => `owner_id = ${s.viewer.user.id} AND post_id = ${s.postRow}`,
  post_hashtags: (s) => `post_id = ${s.postRow}`,
  notification_counts: (s) => `recipient_id = ${s.viewer.user.id}`,
  notification_groups: (s) => `recipient_id = ${s.viewer.user.id} AND post_id = ${s.postRow} AND comment_id IS NULL`,
  notifications: (s) => `recipient_id = ${s.viewer.user.id} AND type = 'follow'`,
  reports: (s) => `reporter_id = ${s.viewer.user.id}`,
  hashtags: (s) => `id = (SELECT hashtag_id FROM post_hashtags WHERE post_id = ${s.postRow})`,
  post_likes: (s) => `post_id = ${s.postRow}`,
  post_bookmarks: (s) => `post_id = ${s.postRow}`,
  follows: (s) => `follower_id = ${s.viewer.user.id} AND followee_id = ${s.author.user.id}`,
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
  [CACHES.find((c) => c.name === "feed-pages")!.bench[0]!]: [
    feed(false),
    feed(true),
    { path: () => "/api/social/bookmarks", fresh: (s) => freshBookmarks(db(), s.viewer.user.id) },
    {
      path: () => "/api/social/hashtags/scene/posts",
      fresh: (s) => freshHashtagPosts(db(), s.viewer.user.id, "scene"),
    },
    { path: (s) => `/api/social/posts/${s.post}/likes`, fresh: (s) => freshPostLikers(db(), s.viewer.user.id, s.post) },
  ],
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
  [CACHES.find((c) => c.name === "chat-list-heads")!.bench[0]!]: [
    {
      path: () => "/api/social/messages?limit=20",
      fresh: async (s) => [200, await freshChatList(db(), s.viewer.user.id, 20)],
    },
  ],
  [CACHES.find((c) => c.name === "follow-pages")!.bench[0]!]: [
    {
      path: (s) => `/api/social/users/${s.viewer.user.username}/following`,
      fresh: (s) => freshFollowPage(db(), s.viewer.user.id, s.viewer.user.username, "following"),
    },
    {
      path: (s) => `/api/social/users/${s.author.user.username}/followers`,
      fresh: (s) => freshFollowPage(db(), s.viewer.user.id, s.author.user.username, "followers"),
    },
  ],
  [CACHES.find((c) => c.name === "history-pages")!.bench[0]!]: [
    {
      path: (s) => `/api/social/messages/${s.chat}`,
      fresh: (s) => freshHistory(world.server.app, s.viewer.user.id, s.chat),
    },
  ],
  [CACHES.find((c) => c.name === "notification-pages")!.bench[0]!]: [
    { path: () => "/api/social/notifications", fresh: (s) => freshNotifications(db(), s.viewer.user.id) },
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

const answered = CACHES.filter((c) => c.bench.some((row) => row in ASKED) && c.invalidation !== "reader stamp");

test("every cache the feed, following, comment, profile and chat list answers are made of is checked here by those answers", () => {
  expect(answered.map((c) => c.name).sort()).toEqual([
    "authors",
    "chat-list-heads",
    "chat-list-messages",
    "comment-cores",
    "comment-pages",
    "feed-pages",
    "follow-pages",
    "history-pages",
    "notification-pages",
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
        try {
          await run(`DELETE FROM ${table} WHERE ${key}`);
        } catch {
          // refused by a reference (an account that sent messages): the row stays
        }
        await expectFresh(s, asked, `the ${table} row deleted`);
        // a write and two reads per column of a wide table (users): minutes on a busy machine
      }, 120_000);
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
