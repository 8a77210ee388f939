import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { postIdAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";
import { TestClient } from "../../testing/client";
import { newCuid } from "../../lib/ids";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

/** Walks every page of PATH (bounded), returning the ids in order. */
async function walk(client: TestClient, path: string, key = "feed", maxPages = 50): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: any } = await client.get(path + (cursor ? `${sep}cursor=${cursor}` : ""));
    expect(res.status).toBe(200);
    ids.push(...res.body.data[key].map((p: any) => p.id));
    cursor = res.body.data.pageInfo.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error("too many pages");
}

describe("feed", () => {
  test("keyset pages stay stable while new posts arrive: no duplicates, no gaps", async () => {
    const { client } = await person();
    const writer = await person();
    const before: string[] = [];
    for (let i = 0; i < 7; i++) before.push(await postIdAs(writer.client, `before ${i}`));
    // several posts in the same millisecond are ordered by id
    const page1 = await client.get("/api/social/feed?limit=3");
    expect(page1.body.data.feed.map((p: any) => p.id)).toEqual(before.slice(-3).reverse());
    const cursor = page1.body.data.pageInfo.nextCursor;
    expect(typeof cursor).toBe("string");
    const inserted = await Promise.all([0, 1, 2].map((i) => postIdAs(writer.client, `during ${i}`)));
    const page2 = await client.get(`/api/social/feed?limit=3&cursor=${cursor}`);
    expect(page2.body.data.feed.map((p: any) => p.id)).toEqual(before.slice(1, 4).reverse());
    const rest = await walk(client, `/api/social/feed?limit=3&cursor=${page2.body.data.pageInfo.nextCursor}`);
    const seen = [...page1.body.data.feed, ...page2.body.data.feed].map((p: any) => p.id).concat(rest);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
    for (const id of inserted) expect(seen).not.toContain(id);
    // a fresh walk sees the new ones first
    const fresh = await walk(client, "/api/social/feed?limit=4");
    expect(fresh.slice(0, 3).sort()).toEqual([...inserted].sort());
  });

  test("following=true shows followed accounts and own posts only", async () => {
    const me = await person();
    const friend = await person();
    const stranger = await person();
    await me.client.post(`/api/social/users/${friend.user.username}/follow`);
    const mine = await postIdAs(me.client, "mine");
    const theirs = await postIdAs(friend.client, "friend's");
    const other = await postIdAs(stranger.client, "stranger's");
    for (const flag of ["true", "1"]) {
      const ids = await walk(me.client, `/api/social/feed?following=${flag}&limit=100`);
      expect(ids).toContain(mine);
      expect(ids).toContain(theirs);
      expect(ids).not.toContain(other);
    }
    const all = await walk(me.client, "/api/social/feed?following=false&limit=100");
    expect(all).toContain(other);
    const bad = await me.client.get("/api/social/feed?following=maybe");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fieldErrors.following).toBeDefined();
  });

  test("limit is bounded and cursors validated", async () => {
    const { client } = await person();
    for (const limit of ["0", "101", "-1", "2.5", "x"]) {
      const res = await client.get(`/api/social/feed?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    }
    expect((await client.get("/api/social/feed?limit=100")).status).toBe(200);
    const res = await client.get("/api/social/feed?cursor=bm90LWEtY3Vyc29y");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
    const def = await client.get("/api/social/feed");
    expect(def.body.data.feed.length).toBeLessThanOrEqual(20);
    expect((await new TestClient(server.url).get("/api/social/feed")).status).toBe(401);
  });

  test("blocked and muted authors vanish from the feed; muted stay on their profile", async () => {
    const me = await person();
    const blocked = await person();
    const blocker = await person();
    const muted = await person();
    const sharer = await person();
    const p1 = await postIdAs(blocked.client, "from someone I block");
    const p2 = await postIdAs(blocker.client, "from someone who blocks me");
    const p3 = await postIdAs(muted.client, "from someone I mute");
    const shared = (await sharer.client.post(`/api/social/posts/${p1}/repost`)).body.data.repost.id;
    expect((await me.client.post(`/api/social/users/${blocked.user.username}/block`)).status).toBe(200);
    expect((await blocker.client.post(`/api/social/users/${me.user.username}/block`)).status).toBe(200);
    expect((await me.client.post(`/api/social/users/${muted.user.username}/mute`)).status).toBe(200);
    const ids = await walk(me.client, "/api/social/feed?limit=100");
    for (const id of [p1, p2, p3, shared]) expect(ids).not.toContain(id);
    // others still see them
    const theirs = await walk(sharer.client, "/api/social/feed?limit=100");
    for (const id of [p1, p2, p3, shared]) expect(theirs).toContain(id);
    // blocked either way: the post itself is gone for me; muted: still reachable
    expect((await me.client.get(`/api/social/posts/${p1}`)).status).toBe(404);
    expect((await me.client.get(`/api/social/posts/${p2}`)).status).toBe(404);
    expect((await me.client.post(`/api/social/posts/${p2}/like`)).status).toBe(404);
    expect((await me.client.get(`/api/social/posts/${p3}`)).status).toBe(200);
    expect(await walk(me.client, `/api/social/users/${muted.user.username}/posts`, "posts")).toEqual([p3]);
  });
});

describe("the following feed, kept on write (feed_entries)", () => {
  // 1,100 posts by strangers, newer than a followed account's posts: the page walks the
  // reader's own entries, never the posts between; pages cross from one followed account's
  // posts to another's without gaps, for a viewer following three accounts (one without
  // posts) as for one following two.
  test("older posts of followed accounts are found behind many newer posts, page after page", async () => {
    const me = await person();
    const few = await person();
    const quiet = await person();
    const busy = await person();
    const idle = await person();
    const stranger = await person();
    for (const followed of [quiet, busy, idle])
      expect((await me.client.post(`/api/social/users/${followed.user.username}/follow`)).status).toBe(200);
    for (const followed of [quiet, busy])
      expect((await few.client.post(`/api/social/users/${followed.user.username}/follow`)).status).toBe(200);
    const { app } = server;
    const now = app.clock.now();
    const insert = (authorId: number, content: string, at: number) =>
      app.db
        .insertInto("posts")
        .values({ cuid: newCuid(), author_id: authorId, content, created_at: at })
        .returning("cuid")
        .executeTakeFirstOrThrow();
    // oldest first: the quiet account's posts, then 1,100 posts by a stranger, then busy's newest
    const quietIds: string[] = [];
    for (let i = 0; i < 5; i++) quietIds.push((await insert(quiet.user.id, `quiet ${i}`, now - 10_000_000 + i)).cuid);
    await app.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 1_100; i++)
        await trx
          .insertInto("posts")
          .values({
            cuid: newCuid(),
            author_id: stranger.user.id,
            content: `noise ${i}`,
            created_at: now - 5_000_000 + i,
          })
          .execute();
    });
    const busyIds: string[] = [];
    for (let i = 0; i < 3; i++) busyIds.push((await insert(busy.user.id, `busy ${i}`, now - 1_000 + i)).cuid);

    const expected = [...busyIds.reverse(), ...quietIds.reverse()];
    // pages of 2: the second crosses from busy's posts to quiet's
    expect(await walk(me.client, "/api/social/feed?following=true&limit=2")).toEqual(expected);
    expect(await walk(me.client, "/api/social/feed?following=true&limit=20")).toEqual(expected);
    // following two: the same pages
    expect(await walk(few.client, "/api/social/feed?following=true&limit=2")).toEqual(expected);
    expect(await walk(few.client, "/api/social/feed?following=true&limit=20")).toEqual(expected);
    // an account following nobody sees only its own posts, and none when it has none
    const newcomer = await person();
    expect(await walk(newcomer.client, "/api/social/feed?following=true")).toEqual([]);
    const own = await postIdAs(newcomer.client, "my first post");
    expect(await walk(newcomer.client, "/api/social/feed?following=true")).toEqual([own]);
    // a muted account leaves the feed
    await me.client.post(`/api/social/users/${quiet.user.username}/mute`);
    expect(await walk(me.client, "/api/social/feed?following=true&limit=2")).toEqual(busyIds);
  });

  test("follows, unfollows, mutes, blocks and deletions change what the following feed shows", async () => {
    const me = await person();
    const friend = await person();
    const other = await person();
    const following = () => walk(me.client, "/api/social/feed?following=true&limit=2");
    const follow = async (p: { user: { username: string } }, verb = "follow") =>
      expect((await me.client.post(`/api/social/users/${p.user.username}/${verb}`)).status).toBe(200);
    const early = await postIdAs(friend.client, "before the follow");
    const mine = await postIdAs(me.client, "mine");
    expect(await following()).toEqual([mine]);
    // a follow brings the followed account's earlier posts in, in their place in time
    await follow(friend);
    expect(await following()).toEqual([mine, early]);
    const later = await postIdAs(friend.client, "after the follow");
    // a followed account's repost of someone else's post, with its original
    const shared = (await friend.client.post(`/api/social/posts/${await postIdAs(other.client, "shared")}/repost`)).body
      .data.repost.id;
    const page = (await me.client.get("/api/social/feed?following=true")).body.data.feed;
    expect(page.map((p: any) => p.id)).toEqual([shared, later, mine, early]);
    expect(page[0].repostOf.content).toBe("shared");
    // a deleted post leaves, and a repost goes with its original
    expect((await friend.client.delete(`/api/social/posts/${later}`)).status).toBe(200);
    expect((await other.client.delete(`/api/social/posts/${page[0].repostOf.id}`)).status).toBe(200);
    expect(await following()).toEqual([mine, early]);
    // unfollow, and back
    await follow(friend);
    expect(await following()).toEqual([mine]);
    await follow(friend);
    expect(await following()).toEqual([mine, early]);
    // a mute takes them out, unmuting puts them back
    await follow(friend, "mute");
    expect(await following()).toEqual([mine]);
    await follow(friend, "mute");
    expect(await following()).toEqual([mine, early]);
    // a block (either way) ends the follow: unblocking does not bring it back
    await follow(friend, "block");
    expect(await following()).toEqual([mine]);
    await follow(friend, "block");
    expect(await following()).toEqual([mine]);
    await follow(friend);
    expect(await following()).toEqual([mine, early]);
    expect((await friend.client.post(`/api/social/users/${me.user.username}/block`)).status).toBe(200);
    expect(await following()).toEqual([mine]);
  });
});

describe("gone accounts", () => {
  test("posts of deleted or disabled accounts, and reposts of them, leave the feed", async () => {
    const reader = await person();
    const leaving = await person();
    const sharer = await person();
    const post = await postIdAs(leaving.client, "soon gone");
    const repost = (await sharer.client.post(`/api/social/posts/${post}/repost`)).body.data.repost.id;
    let ids = await walk(reader.client, "/api/social/feed?limit=100");
    expect(ids).toContain(post);
    expect(ids).toContain(repost);
    await server.app.db
      .updateTable("users")
      .set({ disabled_at: server.clock.now() })
      .where("id", "=", leaving.user.id)
      .execute();
    ids = await walk(reader.client, "/api/social/feed?limit=100");
    expect(ids).not.toContain(post);
    expect(ids).not.toContain(repost);
    expect((await reader.client.get(`/api/social/posts/${post}`)).status).toBe(404);
    expect((await reader.client.get(`/api/social/posts/${repost}`)).status).toBe(404);
    await server.app.db
      .updateTable("users")
      .set({ disabled_at: null, deleted_at: server.clock.now() })
      .where("id", "=", leaving.user.id)
      .execute();
    expect(await walk(reader.client, "/api/social/feed?limit=100")).not.toContain(repost);
  });
});

describe("a person's posts and hashtags", () => {
  test("users/{username}/posts pages one author's posts", async () => {
    const author = await person();
    const reader = await person();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await postIdAs(author.client, `post ${i}`));
    await postIdAs(reader.client, "someone else");
    const got = await walk(reader.client, `/api/social/users/${author.user.username}/posts?limit=2`, "posts");
    expect(got).toEqual([...ids].reverse());
    const upper = await walk(reader.client, `/api/social/users/${author.user.username.toUpperCase()}/posts`, "posts");
    expect(upper).toHaveLength(5);
    const res = await reader.client.get("/api/social/users/nobody_here_at_all/posts");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect((await reader.client.get(`/api/social/users/${author.user.username}/posts?limit=500`)).status).toBe(400);
  });

  test("hashtags are stored and list their posts, in any script", async () => {
    const author = await person();
    const a = await postIdAs(author.client, "Hello #Bun and #Привет");
    const b = await postIdAs(author.client, "again #bun");
    await postIdAs(author.client, "mail me at x#bun@example.com is not a tag");
    expect(await walk(author.client, "/api/social/hashtags/BUN/posts", "posts")).toEqual([b, a]);
    expect(await walk(author.client, `/api/social/hashtags/${encodeURIComponent("привет")}/posts`, "posts")).toEqual([
      a,
    ]);
    expect(await walk(author.client, "/api/social/hashtags/nothing/posts", "posts")).toEqual([]);
    // editing replaces the post's tags
    await author.client.patch(`/api/social/posts/${b}`, { content: "now #deno" });
    expect(await walk(author.client, "/api/social/hashtags/bun/posts", "posts")).toEqual([a]);
    expect(await walk(author.client, "/api/social/hashtags/deno/posts", "posts")).toEqual([b]);
  });
});
