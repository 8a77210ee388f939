import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DeliveredEvent } from "../../realtime/broker";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { uploadFor } from "../../testing/media";
import { postAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

/** Records the realtime events published to USERID until stopped. */
function recordEvents(userId: number) {
  const seen: DeliveredEvent[] = [];
  const stop = server.app.events.subscribe(userId, (e) => seen.push(e));
  return { seen, stop };
}

describe("create post", () => {
  test("returns the full post shape", async () => {
    const { client, user } = await person();
    const res = await client.post("/api/social/posts", { content: "  Hello world  " });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const post = res.body.data.post;
    expect(post).toMatchObject({
      content: "Hello world",
      author: { id: user.cuid, username: user.username, displayName: user.display_name, avatarUrl: null, isBot: false },
      images: [],
      poll: null,
      likeCount: 0,
      commentCount: 0,
      repostCount: 0,
      liked: false,
      bookmarked: false,
      reposted: false,
      repostOf: null,
      editedAt: null,
    });
    expect(typeof post.id).toBe("string");
    expect(new Date(post.createdAt).toISOString()).toBe(post.createdAt);
    const got = await client.get(`/api/social/posts/${post.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.post.id).toBe(post.id);
  });

  test("bad input is a VALIDATION_ERROR naming the field", async () => {
    const { client } = await person();
    let res = await client.post("/api/social/posts", { content: "   " });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.post("/api/social/posts", { content: "x".repeat(2001) });
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    // 2000 emoji are 2000 characters
    res = await client.post("/api/social/posts", { content: "😀".repeat(2000) });
    expect(res.status).toBe(200);
    res = await client.post("/api/social/posts", { content: 42 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.post("/api/social/posts", { content: "hi", clientPostId: "k".repeat(65) });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.clientPostId).toBeDefined();
    res = await client.post("/api/social/posts", { content: "hi", poll: { options: ["only one"] } });
    expect(res.status).toBe(422);
    res = await client.post("/api/social/posts", {
      content: "hi",
      poll: { options: Array.from({ length: 13 }, (_, i) => `o${i}`) },
    });
    expect(res.status).toBe(422);
    res = await client.post("/api/social/posts", { content: "hi", poll: { options: ["a", "  "] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["poll.options"]).toBeDefined();
    res = await client.post("/api/social/posts", { content: "hi", poll: { options: ["a", "x".repeat(101)] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["poll.options"]).toEqual(["each option must be 1 to 100 characters"]);
    res = await client.post("/api/social/posts", {
      content: "hi",
      poll: { question: "?".repeat(301), options: ["a", "b"] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["poll.question"]).toBeDefined();
    res = await client.post("/api/social/posts", { content: "hi", poll: { options: ["a", "x".repeat(401)] } });
    expect(res.status).toBe(422);
    // limits count characters: 100 emoji (200 UTF-16 units) make a valid option, 300 a valid question
    res = await client.post("/api/social/posts", {
      content: "emoji poll",
      poll: { question: "🎉".repeat(300), options: ["😀".repeat(100), "b"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.post.poll.options[0].text).toBe("😀".repeat(100));
    res = await client.post("/api/social/posts", { content: "hi", imageUrls: ["https://elsewhere.example/a.png"] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["imageUrls.0"]).toBeDefined();
    res = await client.post("/api/social/posts", "{not json", { headers: { "content-type": "application/json" } });
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    const anon = new TestClient(server.url);
    res = await anon.post("/api/social/posts", { content: "hi" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
    res = await client.post("/api/social/posts", { content: "hi" }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });

  test("images must be the author's own uploads of a post kind", async () => {
    const { client, user } = await person();
    const other = await person();
    const mine = await uploadFor(server.app, user.id, "post");
    const theirs = await uploadFor(server.app, other.user.id, "post");
    const avatar = await uploadFor(server.app, user.id, "avatar");
    const post = await postAs(client, { content: "", imageUrls: [mine] });
    expect(post.images).toHaveLength(1);
    expect(post.images[0]).toMatchObject({
      url: mine,
      kind: "post",
      width: expect.any(Number),
      height: expect.any(Number),
    });
    let res = await client.post("/api/social/posts", { content: "x", imageUrls: [theirs] });
    expect(res.body.error.details.fieldErrors["imageUrls.0"]).toBeDefined();
    res = await client.post("/api/social/posts", { content: "x", imageUrls: [avatar] });
    expect(res.body.error.details.fieldErrors["imageUrls.0"][0]).toContain("kind");
    res = await client.post("/api/social/posts", { content: "x", imageUrls: [mine, mine] });
    expect(res.body.error.details.fieldErrors.imageUrls).toBeDefined();
    res = await client.post("/api/social/posts", { content: "x", imageUrls: Array.from({ length: 11 }, () => mine) });
    expect(res.status).toBe(422);
  });

  test("clientPostId makes creation idempotent, also for concurrent duplicates", async () => {
    const { client, user } = await person();
    const a = await postAs(client, { content: "once", clientPostId: "key-1" });
    const b = await postAs(client, { content: "once again", clientPostId: "key-1" });
    expect(b.id).toBe(a.id);
    expect(b.content).toBe("once");
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => client.post("/api/social/posts", { content: "burst", clientPostId: "key-2" })),
    );
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(new Set(burst.map((r) => r.body.data.post.id)).size).toBe(1);
    const rows = await server.app.db
      .selectFrom("posts")
      .select("id")
      .where("author_id", "=", user.id)
      .where("client_post_id", "in", ["key-1", "key-2"])
      .execute();
    expect(rows).toHaveLength(2);
    // the key is per author: someone else's same key is a new post
    const other = await person();
    const c = await postAs(other.client, { content: "mine", clientPostId: "key-1" });
    expect(c.id).not.toBe(a.id);
  });
});

describe("edit and delete", () => {
  test("only the author edits; others get FORBIDDEN, unknown ids NOT_FOUND", async () => {
    const { client } = await person();
    const other = await person();
    const post = await postAs(client, { content: "first #draft" });
    let res = await client.patch(`/api/social/posts/${post.id}`, { content: "second #final" });
    expect(res.status).toBe(200);
    expect(res.body.data.post.content).toBe("second #final");
    expect(res.body.data.post.editedAt).not.toBeNull();
    res = await other.client.patch(`/api/social/posts/${post.id}`, { content: "hijack" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    res = await other.client.delete(`/api/social/posts/${post.id}`);
    expect(res.status).toBe(403);
    res = await client.patch(`/api/social/posts/${post.id}`, { content: "" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.patch(`/api/social/posts/${post.id}`, {});
    expect(res.status).toBe(400);
    res = await client.patch(`/api/social/posts/${post.id}`, { content: 5 });
    expect(res.status).toBe(422);
    res = await client.get("/api/social/posts/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    res = await client.patch("/api/social/posts/nope", { content: "x" });
    expect(res.status).toBe(404);
    expect((await client.get(`/api/social/posts/${post.id}`)).body.data.post.content).toBe("second #final");
  });

  test("delete removes the post and tells followers and the author", async () => {
    const author = await person();
    const follower = await person();
    const stranger = await person();
    expect((await follower.client.post(`/api/social/users/${author.user.username}/follow`)).status).toBe(200);
    const post = await postAs(author.client, { content: "short-lived" });
    const fEvents = recordEvents(follower.user.id);
    const aEvents = recordEvents(author.user.id);
    const sEvents = recordEvents(stranger.user.id);
    const res = await author.client.delete(`/api/social/posts/${post.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    for (const rec of [fEvents, aEvents])
      expect(rec.seen.map((e) => [e.event, e.data])).toContainEqual(["post:deleted", { postId: post.id }]);
    expect(sEvents.seen.filter((e) => e.event === "post:deleted")).toHaveLength(0);
    [fEvents, aEvents, sEvents].forEach((r) => r.stop());
    expect((await author.client.get(`/api/social/posts/${post.id}`)).status).toBe(404);
    expect((await author.client.delete(`/api/social/posts/${post.id}`)).status).toBe(404);
  });

  test("posting announces feed:new to followers, not to those who muted the author", async () => {
    const author = await person();
    const follower = await person();
    const muter = await person();
    await follower.client.post(`/api/social/users/${author.user.username}/follow`);
    await muter.client.post(`/api/social/users/${author.user.username}/follow`);
    await muter.client.post(`/api/social/users/${author.user.username}/mute`);
    const rec = recordEvents(follower.user.id);
    const muted = recordEvents(muter.user.id);
    const post = await postAs(author.client, { content: "news" });
    rec.stop();
    muted.stop();
    expect(rec.seen.map((e) => [e.event, e.data])).toContainEqual(["feed:new", { postIds: [post.id] }]);
    expect(muted.seen.filter((e) => e.event === "feed:new")).toHaveLength(0);
  });

  test("a repost is announced to the reposter's followers, not to the reposter as news", async () => {
    const author = await person();
    const sharer = await person();
    const follower = await person();
    await follower.client.post(`/api/social/users/${sharer.user.username}/follow`);
    const post = await postAs(author.client, { content: "worth sharing" });
    const toFollower = recordEvents(follower.user.id);
    const toSharer = recordEvents(sharer.user.id);
    const repost = (await sharer.client.post(`/api/social/posts/${post.id}/repost`)).body.data.repost;
    toFollower.stop();
    toSharer.stop();
    expect(toFollower.seen.map((e) => [e.event, e.data])).toContainEqual(["feed:new", { postIds: [repost.id] }]);
    expect(toSharer.seen.filter((e) => e.event === "feed:new")).toHaveLength(0);
  });
});

describe("likes, reposts, bookmarks", () => {
  test("like toggles, counts, lists likers and notifies the author", async () => {
    const author = await person();
    const fan = await person();
    const post = await postAs(author.client, { content: "like me" });
    let res = await fan.client.post(`/api/social/posts/${post.id}/like`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ liked: true, likeCount: 1 });
    res = await author.client.post(`/api/social/posts/${post.id}/like`);
    expect(res.body.data).toEqual({ liked: true, likeCount: 2 });
    res = await fan.client.get(`/api/social/posts/${post.id}/likes?limit=1`);
    expect(res.body.data.users.map((u: any) => u.username)).toEqual([author.user.username]);
    const next = await fan.client.get(
      `/api/social/posts/${post.id}/likes?limit=1&cursor=${res.body.data.pageInfo.nextCursor}`,
    );
    expect(next.body.data.users.map((u: any) => u.username)).toEqual([fan.user.username]);
    expect(next.body.data.pageInfo.nextCursor).toBeNull();
    expect((await fan.client.get(`/api/social/posts/${post.id}`)).body.data.post).toMatchObject({
      liked: true,
      likeCount: 2,
    });
    const likesOfAuthor = () =>
      server.app.db
        .selectFrom("notifications")
        .selectAll()
        .where("recipient_id", "=", author.user.id)
        .where("type", "=", "like")
        .execute();
    const notes = await likesOfAuthor();
    expect(notes).toHaveLength(1);
    expect(notes[0]!.actor_id).toBe(fan.user.id);
    // taking the like back takes its notification back
    res = await fan.client.post(`/api/social/posts/${post.id}/like`);
    expect(res.body.data).toEqual({ liked: false, likeCount: 1 });
    expect(await likesOfAuthor()).toEqual([]);
    expect((await fan.client.post("/api/social/posts/missing/like")).status).toBe(404);
    expect((await fan.client.get(`/api/social/posts/${post.id}/likes?limit=0`)).body.error.code).toBe(
      "VALIDATION_ERROR",
    );
    expect(
      (await fan.client.get(`/api/social/posts/${post.id}/likes?cursor=%%%`)).body.error.details.fieldErrors.cursor,
    ).toBeDefined();
  });

  test("repost toggles, shows the original and reaches the feed", async () => {
    const author = await person();
    const sharer = await person();
    const post = await postAs(author.client, { content: "worth sharing" });
    let res = await sharer.client.post(`/api/social/posts/${post.id}/repost`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ reposted: true, repostCount: 1 });
    const repost = res.body.data.repost;
    expect(repost.author.username).toBe(sharer.user.username);
    expect(repost.repostOf.id).toBe(post.id);
    expect(repost.repostOf.reposted).toBe(true);
    // reposting the repost means the original: it takes the repost back
    res = await sharer.client.post(`/api/social/posts/${repost.id}/repost`);
    expect(res.body.data).toEqual({ reposted: false, repostCount: 0, repost: null });
    expect((await sharer.client.get(`/api/social/posts/${repost.id}`)).status).toBe(404);
    res = await sharer.client.post(`/api/social/posts/${post.id}/repost`);
    expect(res.body.data.reposted).toBe(true);
    const notes = await server.app.db
      .selectFrom("notifications")
      .select("type")
      .where("recipient_id", "=", author.user.id)
      .where("type", "=", "repost")
      .execute();
    expect(notes.length).toBeGreaterThanOrEqual(1);
    // deleting the original removes reposts too
    await author.client.delete(`/api/social/posts/${post.id}`);
    expect((await sharer.client.get(`/api/social/posts/${res.body.data.repost.id}`)).status).toBe(404);
    expect((await sharer.client.post("/api/social/posts/missing/repost")).status).toBe(404);
  });

  test("bookmarks are private and listed newest first", async () => {
    const author = await person();
    const reader = await person();
    const p1 = await postAs(author.client, { content: "one" });
    const p2 = await postAs(author.client, { content: "two" });
    expect((await reader.client.post(`/api/social/posts/${p1.id}/bookmark`)).body.data).toEqual({ bookmarked: true });
    server.clock.advance(5);
    expect((await reader.client.post(`/api/social/posts/${p2.id}/bookmark`)).body.data).toEqual({ bookmarked: true });
    let res = await reader.client.get("/api/social/bookmarks?limit=1");
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([p2.id]);
    expect(res.body.data.posts[0].bookmarked).toBe(true);
    res = await reader.client.get(`/api/social/bookmarks?limit=1&cursor=${res.body.data.pageInfo.nextCursor}`);
    expect(res.body.data.posts.map((p: any) => p.id)).toEqual([p1.id]);
    expect((await author.client.get("/api/social/bookmarks")).body.data.posts).toEqual([]);
    expect((await author.client.get(`/api/social/posts/${p1.id}`)).body.data.post.bookmarked).toBe(false);
    expect((await reader.client.post(`/api/social/posts/${p1.id}/bookmark`)).body.data).toEqual({ bookmarked: false });
    expect((await reader.client.get("/api/social/bookmarks?limit=abc")).status).toBe(400);
  });

  test("bookmarks leave out posts of accounts blocked either way; a bookmarked repost stays without its original", async () => {
    const [author, sharer, reader, blocker] = [await person(), await person(), await person(), await person()];
    const own = await postAs(author.client, { content: "by the author" });
    const repost = (await sharer.client.post(`/api/social/posts/${own.id}/repost`)).body.data.repost;
    const other = await postAs(blocker.client, { content: "by the blocker" });
    for (const id of [own.id, repost.id, other.id]) {
      expect((await reader.client.post(`/api/social/posts/${id}/bookmark`)).status).toBe(200);
      server.clock.advance(5);
    }
    const listed = async () => (await reader.client.get("/api/social/bookmarks")).body.data.posts as any[];
    expect((await listed()).map((p) => p.id)).toEqual([other.id, repost.id, own.id]);
    // the reader blocks the author; the blocker blocks the reader
    expect((await reader.client.post(`/api/social/users/${author.user.username}/block`)).status).toBe(200);
    expect((await blocker.client.post(`/api/social/users/${reader.user.username}/block`)).status).toBe(200);
    const after = await listed();
    expect(after.map((p) => p.id)).toEqual([repost.id]);
    expect(after[0].repostOf).toBeNull();
  });
});

describe("polls", () => {
  test("single choice: one vote per account, counts and myVotes", async () => {
    const author = await person();
    const voter = await person();
    const post = await postAs(author.client, {
      content: "Tea or coffee?",
      poll: { question: "Pick one", options: ["Tea", "Coffee", "Water"] },
    });
    expect(post.poll).toMatchObject({ question: "Pick one", multiple: false, totalVoters: 0, myVotes: [] });
    expect(post.poll.options.map((o: any) => [o.text, o.index, o.votes])).toEqual([
      ["Tea", 0, 0],
      ["Coffee", 1, 0],
      ["Water", 2, 0],
    ]);
    let res = await voter.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [1] });
    expect(res.status).toBe(200);
    expect(res.body.data.poll.options[1].votes).toBe(1);
    expect(res.body.data.poll.myVotes).toEqual([post.poll.options[1].id]);
    expect(res.body.data.poll.totalVoters).toBe(1);
    res = await voter.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("ALREADY_VOTED");
    res = await author.client.post(`/api/social/posts/${post.id}/poll/vote`, { optionIds: [post.poll.options[0].id] });
    expect(res.body.data.poll.options.map((o: any) => o.votes)).toEqual([1, 1, 0]);
    const third = await person();
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0, 1] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.options).toBeDefined();
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [] });
    expect(res.status).toBe(400);
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, {});
    expect(res.status).toBe(400);
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, { optionIds: ["nope"] });
    expect(res.status).toBe(400);
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [7] });
    expect(res.status).toBe(400);
    res = await third.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: ["a"] });
    expect(res.status).toBe(422);
    const plain = await postAs(author.client, { content: "no poll" });
    res = await third.client.post(`/api/social/posts/${plain.id}/poll/vote`, { options: [0] });
    expect(res.status).toBe(404);
  });

  test("multiple choice accepts several options once; concurrent votes count once", async () => {
    const author = await person();
    const voter = await person();
    const post = await postAs(author.client, { content: "", poll: { options: ["A", "B", "C"], multiple: true } });
    const burst = await Promise.all(
      Array.from({ length: 4 }, () => voter.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0, 2] })),
    );
    expect(burst.filter((r) => r.status === 200)).toHaveLength(1);
    expect(burst.filter((r) => r.status === 409)).toHaveLength(3);
    const got = (await voter.client.get(`/api/social/posts/${post.id}`)).body.data.post.poll;
    expect(got.options.map((o: any) => o.votes)).toEqual([1, 0, 1]);
    expect(got.totalVoters).toBe(1);
    expect(got.myVotes).toHaveLength(2);
  });
});

describe("account export", () => {
  test("includes the person's own posts, comments, bookmarks, likes and votes only", async () => {
    const me = await person();
    const other = await person();
    const mine = await postAs(me.client, { content: "exported #data", poll: { options: ["x", "y"] } });
    const theirs = await postAs(other.client, { content: "not mine" });
    await me.client.post(`/api/social/posts/${theirs.id}/like`);
    await me.client.post(`/api/social/posts/${theirs.id}/bookmark`);
    await me.client.post(`/api/social/posts/${theirs.id}/comments`, { content: "my comment" });
    await other.client.post(`/api/social/posts/${mine.id}/comments`, { content: "their comment" });
    await me.client.post(`/api/social/posts/${mine.id}/poll/vote`, { options: [1] });
    const res = await me.client.get("/api/account/export");
    expect(res.status).toBe(200);
    const data = res.body.data.export;
    expect(data.posts).toEqual([
      {
        id: mine.id,
        content: "exported #data",
        images: [],
        repostOf: null,
        poll: { question: "", multiple: false, options: ["x", "y"] },
        createdAt: mine.createdAt,
        editedAt: null,
      },
    ]);
    expect(data.comments.map((c: any) => [c.postId, c.content])).toEqual([[theirs.id, "my comment"]]);
    expect(data.likes.map((l: any) => l.postId)).toEqual([theirs.id]);
    expect(data.bookmarks.map((b: any) => b.postId)).toEqual([theirs.id]);
    expect(data.pollVotes.map((v: any) => [v.postId, v.option])).toEqual([[mine.id, "y"]]);
  });
});
