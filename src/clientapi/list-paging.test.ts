import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sendMessage } from "../domain/chats";
import { findConversationByCuid } from "../domain/chats/access";
import type { UserRow } from "../domain/users/table";
import { newCuid } from "../lib/ids";
import type { TestClient } from "../testing/client";
import { insertPeople, quickPerson } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";

// Every list pages by cursor through the whole list with no row twice and none left out, while
// new rows arrive between pages: rows newer than the first page go before it (lists newest
// first) or after the last one (a post's comments, oldest first; a chat read downwards).

let server: TestServer;
let people: UserRow[];
beforeAll(async () => {
  server = await startTestServer();
  people = await insertPeople(server.app, 40, "not-a-hash");
});
afterAll(() => server.stop());

const N = 23;
const LIMIT = 5;
/** Times of seeded rows: some share a millisecond, so the id must break ties. */
const seededAt = (i: number) => 1_700_000_000_000 + Math.floor(i / 3);

/**
 * Every id of the list at PATH, page after page (LIMIT each), following NEXT's cursor in
 * PARAM; BETWEEN runs after each page.
 */
async function walk(
  client: TestClient,
  path: string,
  items: (data: any) => { id: string }[],
  between: () => Promise<unknown>,
  opts: { param?: string; next?: (data: any) => string | null } = {},
): Promise<string[]> {
  const { param = "cursor", next = (d: any) => d.pageInfo.nextCursor } = opts;
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const sep = path.includes("?") ? "&" : "?";
    const res: any = await client.get(`${path}${sep}limit=${LIMIT}${cursor ? `&${param}=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    seen.push(...items(res.body.data).map((x) => x.id));
    cursor = next(res.body.data);
    if (!cursor) return seen;
    await between();
  }
  throw new Error(`${path} did not end`);
}

/** The whole list at PATH in one page (the reference order). */
async function whole(client: TestClient, path: string, items: (data: any) => { id: string }[]): Promise<string[]> {
  const sep = path.includes("?") ? "&" : "?";
  return items((await client.get(`${path}${sep}limit=100`)).body.data).map((x) => x.id);
}

const users = (d: any) => d.users as { id: string }[];
const posts = (d: any) => d.posts as { id: string }[];

async function newPost(authorId: number, createdAt = server.clock.now()): Promise<{ id: number; cuid: string }> {
  return server.app.db
    .insertInto("posts")
    .values({ cuid: newCuid(), author_id: authorId, created_at: createdAt })
    .returning(["id", "cuid"])
    .executeTakeFirstOrThrow();
}

describe("paging while rows are added: no duplicates, no gaps", () => {
  test("followers and following, newest follow first", async () => {
    const me = await quickPerson(server);
    for (let i = 0; i < N; i++) {
      await server.app.db
        .insertInto("follows")
        .values([
          { follower_id: people[i]!.id, followee_id: me.user.id, created_at: seededAt(i) },
          { follower_id: me.user.id, followee_id: people[i]!.id, created_at: seededAt(i) },
        ])
        .execute();
    }
    let next = N;
    const follow = async () => {
      const p = people[next++]!;
      await server.app.db
        .insertInto("follows")
        .values([
          { follower_id: p.id, followee_id: me.user.id, created_at: server.clock.now() },
          { follower_id: me.user.id, followee_id: p.id, created_at: server.clock.now() },
        ])
        .execute();
    };
    for (const direction of ["followers", "following"]) {
      const path = `/api/social/users/${me.user.username}/${direction}`;
      const expected = await whole(me.client, path, users);
      expect(expected).toHaveLength(next);
      expect(await walk(me.client, path, users, follow)).toEqual(expected);
    }
    // the viewer's own follows show on the list
    const res = await me.client.get(`/api/social/users/${me.user.username}/followers?limit=3`);
    expect(res.body.data.users.map((u: any) => u.isFollowing)).toEqual([true, true, true]);
  });

  test("likers of a post, most recent first", async () => {
    const me = await quickPerson(server);
    const post = await newPost(me.user.id);
    for (let i = 0; i < N; i++)
      await server.app.db
        .insertInto("post_likes")
        .values({ post_id: post.id, user_id: people[i]!.id, created_at: seededAt(i) })
        .execute();
    let next = N;
    const like = () =>
      server.app.db
        .insertInto("post_likes")
        .values({ post_id: post.id, user_id: people[next++]!.id, created_at: server.clock.now() })
        .execute();
    const path = `/api/social/posts/${post.cuid}/likes`;
    const expected = await whole(me.client, path, users);
    expect(expected).toHaveLength(N);
    expect(await walk(me.client, path, users, like)).toEqual(expected);
  });

  test("my bookmarks, most recently saved first", async () => {
    const me = await quickPerson(server);
    for (let i = 0; i < N; i++) {
      const post = await newPost(people[i]!.id);
      await server.app.db
        .insertInto("post_bookmarks")
        .values({ post_id: post.id, user_id: me.user.id, created_at: seededAt(i) })
        .execute();
    }
    const bookmark = async () =>
      server.app.db
        .insertInto("post_bookmarks")
        .values({ post_id: (await newPost(people[0]!.id)).id, user_id: me.user.id, created_at: server.clock.now() })
        .execute();
    const expected = await whole(me.client, "/api/social/bookmarks", posts);
    expect(expected).toHaveLength(N);
    expect(await walk(me.client, "/api/social/bookmarks", posts, bookmark)).toEqual(expected);
  });

  test("a hashtag's posts, newest first", async () => {
    const me = await quickPerson(server);
    const tag = `t${newCuid().slice(-8)}`;
    const { id: hashtagId } = await server.app.db
      .insertInto("hashtags")
      .values({ tag, created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const tagged = async (createdAt: number, authorId: number) => {
      const post = await newPost(authorId, createdAt);
      await server.app.db
        .insertInto("post_hashtags")
        .values({ post_id: post.id, hashtag_id: hashtagId, post_created_at: createdAt })
        .execute();
      // an untagged post between tagged ones: never on the list
      await newPost(authorId, createdAt);
    };
    for (let i = 0; i < N; i++) await tagged(seededAt(i), people[i]!.id);
    const path = `/api/social/hashtags/${tag}/posts`;
    const expected = await whole(me.client, path, posts);
    expect(expected).toHaveLength(N);
    expect(await walk(me.client, path, posts, () => tagged(server.clock.now(), people[0]!.id))).toEqual(expected);
  });

  test("a post's comments, oldest first: new ones come after the last page", async () => {
    const me = await quickPerson(server);
    const post = await newPost(me.user.id);
    const comment = (authorId: number, createdAt: number) =>
      server.app.db
        .insertInto("comments")
        .values({ cuid: newCuid(), post_id: post.id, author_id: authorId, content: "c", created_at: createdAt })
        .returning("id")
        .executeTakeFirstOrThrow();
    for (let i = 0; i < N; i++) {
      const { id } = await comment(people[i]!.id, seededAt(i));
      // replies are not top-level comments: never on the post's list
      await server.app.db
        .insertInto("comments")
        .values({
          cuid: newCuid(),
          post_id: post.id,
          author_id: people[i]!.id,
          reply_to_id: id,
          content: "r",
          created_at: seededAt(i),
        })
        .execute();
    }
    const path = `/api/social/posts/${post.cuid}/comments`;
    const before = await whole(me.client, path, (d) => d.comments);
    expect(before).toHaveLength(N);
    let added = 0;
    const seen = await walk(
      me.client,
      path,
      (d) => d.comments,
      async () => {
        await comment(people[0]!.id, server.clock.now() + ++added);
      },
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, N)).toEqual(before);
    expect(seen).toEqual(await whole(me.client, path, (d) => d.comments));
  });

  test("chat history: older pages from the newest, then newer pages back down", async () => {
    const me = await quickPerson(server);
    const other = await quickPerson(server);
    const opened = await me.client.post(`/api/social/users/${other.user.username}/message`, {});
    const cid = opened.body.data.conversationId as string;
    const conversation = (await findConversationByCuid(server.app.db, cid))!;
    let n = 0;
    const send = () =>
      sendMessage(server.app, { conversationId: conversation.id, senderId: other.user.id, content: `m${n++}` });
    for (let i = 0; i < N; i++) await send();
    const path = `/api/social/messages/${cid}`;
    const messages = (d: any) => d.messages as { id: string }[];
    const expected = await whole(me.client, path, messages);
    expect(expected).toHaveLength(N);

    // up into history (newest first), while messages keep arriving at the newest end
    const older = await walk(me.client, path, messages, send, {
      param: "before",
      next: (d) => d.pageInfo.oldestCursor,
    });
    expect(older).toEqual(expected);

    // and back down from the oldest message, each page newest first, while more arrive: they come last
    const total = (await whole(me.client, path, messages)).length;
    const secondOldest = (await me.client.get(`${path}?limit=${total - 1}`)).body.data.pageInfo.oldestCursor;
    const top = (await me.client.get(`${path}?limit=1&before=${secondOldest}`)).body.data;
    expect(top.messages).toHaveLength(1);
    const down: string[] = [top.messages[0].id];
    let cursor: string | null = top.pageInfo.newestCursor;
    while (cursor) {
      const page: any = (await me.client.get(`${path}?limit=${LIMIT}&after=${cursor}`)).body.data;
      down.push(...page.messages.map((m: any) => m.id).reverse());
      cursor = page.pageInfo.newestCursor;
      if (cursor) await send();
    }
    expect(new Set(down).size).toBe(down.length);
    expect(down).toEqual((await whole(me.client, path, messages)).reverse());
  });
});
