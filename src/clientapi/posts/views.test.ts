import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { feedPage, findVisiblePostView, userPostsPage } from "../../domain/posts/feed";
import { cachedPostViewsOf } from "../../domain/posts/view";
import { postJson, serializePost } from "./serialize";
import { uploadFor } from "../../testing/media";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb as countingStatements } from "../../testing/statements";
import { postAs, postIdAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";
import { queryRow, queryRows } from "../../testing/sql";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

const countingDb = () => countingStatements(server.app.db);

describe("post views in few statements", () => {
  test("a feed page is one statement once its posts and authors are kept; originals and polls add one each, only when present", async () => {
    const reader = await person();
    const writer = await person();
    for (let i = 0; i < 5; i++) await postIdAs(writer.client, `plain ${i}`);
    const { db, counter } = countingDb();
    const kept = cachedPostViewsOf(server.app);
    const page = () => feedPage(db, kept, reader.user.id, { cursor: null, limit: 5, following: false });
    // answering each new post made its view, so its core and author are kept
    const plain = await page();
    expect(plain.items.map((v) => v.row.content)).toEqual(["plain 4", "plain 3", "plain 2", "plain 1", "plain 0"]);
    expect(counter.statements).toBe(1);
    // changed outside the app's code (as the CLI or another node would): their columns are read again
    const [, second, third] = plain.items;
    await sql`UPDATE posts SET content = 'changed' WHERE id = ${second!.row.id}`.execute(server.app.db);
    await sql`UPDATE users SET display_name = 'Renamed' WHERE id = ${writer.user.id}`.execute(server.app.db);
    counter.statements = 0;
    const changed = await page();
    expect(changed.items.map((v) => v.row.content)).toEqual(["plain 4", "changed", "plain 2", "plain 1", "plain 0"]);
    expect(changed.items.map((v) => v.author.display_name)).toEqual(Array(5).fill("Renamed"));
    expect(counter.statements).toBe(3);
    await sql`DELETE FROM posts WHERE id = ${third!.row.id}`.execute(server.app.db);
    counter.statements = 0;
    expect((await page()).items.map((v) => v.row.content)).toEqual(["plain 4", "changed", "plain 1", "plain 0"]);
    expect(counter.statements).toBe(1);

    const polled = await postAs(writer.client, { content: "vote", poll: { options: ["a", "b"] } });
    const original = await postIdAs(writer.client, "to share");
    expect((await reader.client.post(`/api/social/posts/${original}/repost`)).status).toBe(200);
    const mixedPage = () => feedPage(db, kept, reader.user.id, { cursor: null, limit: 3, following: false });
    await mixedPage();
    counter.statements = 0;
    const mixed = await mixedPage();
    expect(mixed.items.map((v) => v.row.content)).toEqual(["", "to share", "vote"]);
    expect(mixed.items[0]!.repostOf!.row.cuid).toBe(original);
    expect(mixed.items[2]!.poll!.options.map((o) => o.text)).toEqual(["a", "b"]);
    expect(counter.statements).toBe(3);

    counter.statements = 0;
    const one = await findVisiblePostView(db, kept, reader.user.id, polled.id);
    expect(one.poll!.cuid).toBe(polled.poll.id);
    expect(counter.statements).toBe(2);
    counter.statements = 0;
    await expect(findVisiblePostView(db, kept, reader.user.id, "no-such-post")).rejects.toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(counter.statements).toBe(1);
  });

  test("a page whose views are all kept is answered without a promise (SQLite), with what a read of its parts shows", async () => {
    const reader = await person();
    const writer = await person();
    expect((await reader.client.post(`/api/social/users/${writer.user.username}/follow`)).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await postIdAs(writer.client, `kept ${i}`));
    const own = await postIdAs(reader.client, "mine");
    expect((await reader.client.post(`/api/social/posts/${ids[1]}/like`)).status).toBe(200);
    expect((await reader.client.post(`/api/social/posts/${ids[0]}/bookmark`)).status).toBe(200);
    const kept = cachedPostViewsOf(server.app);
    const storage = server.app.storage;
    const sqlite = storage.engine === "sqlite";
    // the App's own db (a counting plugin would send every statement through Kysely)
    const page = (following: boolean) =>
      feedPage(server.app.db, kept, reader.user.id, { cursor: null, limit: 4, following });
    const shown = (views: Awaited<ReturnType<typeof page>>["items"]) =>
      views.map((v) => [v.row.content, v.liked, v.bookmarked, v.own, v.likeCount]);
    const expected = [
      ["mine", false, false, true, 0],
      ["kept 2", false, false, false, 0],
      ["kept 1", true, false, false, 1],
      ["kept 0", false, true, false, 0],
    ];
    for (const following of [true, false]) {
      await page(following);
      const before = storage.statements();
      const now = page(following);
      // PostgreSQL's statements are asynchronous: a promise there, always
      expect(now instanceof Promise).toBe(!sqlite);
      expect(shown((await now).items)).toEqual(expected);
      expect(storage.statements() - before).toBe(1);
    }
    // a post changed outside the app: its view is read again, with a promise, and then kept again
    await sql`UPDATE posts SET content = 'edited elsewhere' WHERE cuid = ${ids[2]}`.execute(server.app.db);
    const read = page(true);
    expect(read instanceof Promise).toBe(true);
    expect(shown((await read).items)[1]).toEqual(["edited elsewhere", false, false, false, 0]);
    expect(page(true) instanceof Promise).toBe(!sqlite);
    // the reader's own marks come with the page's statement, whatever is kept
    expect((await reader.client.post(`/api/social/posts/${ids[1]}/like`)).status).toBe(200);
    expect((await reader.client.post(`/api/social/posts/${own}/bookmark`)).status).toBe(200);
    await page(true);
    const after = page(true);
    expect(after instanceof Promise).toBe(!sqlite);
    expect(shown((await after).items)).toEqual([
      ["mine", false, true, true, 0],
      ["edited elsewhere", false, false, false, 0],
      ["kept 1", false, false, false, 0],
      ["kept 0", false, true, false, 0],
    ]);
    // a repost and a poll are read with their originals' and polls' statements
    const poll = await postAs(writer.client, { content: "vote", poll: { options: ["a", "b"] } });
    expect((await reader.client.post(`/api/social/posts/${ids[0]}/repost`)).status).toBe(200);
    await page(true);
    const mixed = page(true);
    expect(mixed instanceof Promise).toBe(true);
    const { items, nextCursor } = await mixed;
    expect(items.map((v) => v.repostOf?.row.cuid ?? v.poll?.cuid ?? null)).toEqual([ids[0], poll.poll.id, null, null]);
    // an answer made without a promise has the bytes of its views' shapes in the envelope
    await sql`DELETE FROM posts WHERE cuid = ${poll.id}`.execute(server.app.db);
    await sql`DELETE FROM posts WHERE repost_of_id IS NOT NULL`.execute(server.app.db);
    const plain = await page(true);
    expect(page(true) instanceof Promise).toBe(!sqlite);
    const res = await fetch(`${server.url}/api/social/feed?following=true&limit=4`, {
      headers: { cookie: reader.client.cookieHeader() },
    });
    expect(await res.text()).toBe(
      JSON.stringify({
        success: true,
        data: { feed: plain.items.map(serializePost), pageInfo: { nextCursor: plain.nextCursor } },
      }),
    );
    expect(nextCursor).not.toBeNull();
  });

  test("queries compiled once per shape still carry each viewer's own marks, cursor and author", async () => {
    const author = await person();
    const a = await person();
    const b = await person();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await postIdAs(author.client, `shape ${i}`));
    expect((await a.client.post(`/api/social/posts/${ids[3]}/like`)).status).toBe(200);
    expect((await b.client.post(`/api/social/posts/${ids[3]}/bookmark`)).status).toBe(200);
    expect((await b.client.post(`/api/social/posts/${ids[2]}/repost`)).status).toBe(200);

    const profile = `/api/social/users/${author.user.username}/posts?limit=2`;
    const pa = (await a.client.get(profile)).body.data;
    const pb = (await b.client.get(profile)).body.data;
    expect(pa.posts.map((p: any) => p.id)).toEqual([ids[3], ids[2]]);
    expect(pa.posts.map((p: any) => [p.liked, p.bookmarked, p.reposted, p.likeCount, p.repostCount])).toEqual([
      [true, false, false, 1, 0],
      [false, false, false, 0, 1],
    ]);
    expect(pb.posts.map((p: any) => [p.liked, p.bookmarked, p.reposted, p.likeCount, p.repostCount])).toEqual([
      [false, true, false, 1, 0],
      [false, false, true, 0, 1],
    ]);
    // the same cursored shape, two different cursors
    const next = (await a.client.get(`${profile}&cursor=${pa.pageInfo.nextCursor}`)).body.data;
    expect(next.posts.map((p: any) => p.id)).toEqual([ids[1], ids[0]]);
    expect(next.pageInfo.nextCursor).toBeNull();
    const other = await person();
    await postIdAs(other.client, "someone else");
    const theirs = await userPostsPage(server.app.db, cachedPostViewsOf(server.app), a.user.id, other.user, {
      cursor: null,
      limit: 2,
    });
    expect(theirs.items.map((v) => v.row.content)).toEqual(["someone else"]);
  });

  test("a reader's marks show on every post, inside, at the ends of and outside the range of posts they marked", async () => {
    const author = await person();
    const reader = await person();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await postIdAs(author.client, `range ${i}`));
    const mark = async (i: number, what: "like" | "bookmark" | "repost") =>
      expect((await reader.client.post(`/api/social/posts/${ids[i]}/${what}`)).status).toBe(200);
    // likes at both ends of their range with an unliked post between, one bookmark (lowest = highest), one repost
    await mark(1, "like");
    await mark(3, "like");
    await mark(2, "bookmark");
    await mark(4, "repost");
    const marks = async () => {
      const res = await reader.client.get(`/api/social/users/${author.user.username}/posts?limit=10`);
      expect(res.status).toBe(200);
      const shown = new Map(res.body.data.posts.map((p: any) => [p.id, p]));
      return ids.map((id) => {
        const p: any = shown.get(id);
        return (p.liked ? "L" : "-") + (p.bookmarked ? "B" : "-") + (p.reposted ? "R" : "-");
      });
    };
    expect(await marks()).toEqual(["---", "L--", "-B-", "L--", "--R", "---"]);
    // marks written outside the app's code (as the CLI or another node would), beyond either end and inside
    const db = server.app.db;
    const postId = async (cuid: string) =>
      (await queryRow<{ id: number }>(db, "SELECT id FROM posts WHERE cuid = ?", cuid))!.id;
    const now = Date.now();
    for (const [table, i] of [
      ["post_likes", 5],
      ["post_bookmarks", 0],
      ["post_bookmarks", 4],
    ] as const)
      await queryRows(
        db,
        `INSERT INTO ${table} (post_id, user_id, created_at) VALUES (?, ?, ?)`,
        await postId(ids[i]!),
        reader.user.id,
        now,
      );
    await queryRows(
      db,
      "DELETE FROM post_likes WHERE post_id = ? AND user_id = ?",
      await postId(ids[1]!),
      reader.user.id,
    );
    expect(await marks()).toEqual(["-B-", "---", "-B-", "L--", "-BR", "L--"]);
    // the page's statement reads the marks the same way with the migration's indexes taken away and put back
    const { migrations } = await import("../../db/migrations");
    const byAccount = migrations["20261125042000_marks_by_account"]!;
    await db.transaction().execute((tx) => byAccount.down!(tx));
    expect(await marks()).toEqual(["-B-", "---", "-B-", "L--", "-BR", "L--"]);
    await db.transaction().execute((tx) => byAccount.up(tx));
    expect(await marks()).toEqual(["-B-", "---", "-B-", "L--", "-BR", "L--"]);
  });

  test("a post looks the same in the feed and on its own, counters and own state included", async () => {
    const author = await person();
    const viewer = await person();
    const post = await postAs(author.client, {
      content: "compare #same",
      poll: { options: ["x", "y", "z"], multiple: true },
    });
    // chosen out of position order: myVotes keeps the order of choice
    expect((await viewer.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [2, 0] })).status).toBe(200);
    expect((await author.client.post(`/api/social/posts/${post.id}/poll/vote`, { options: [0] })).status).toBe(200);
    expect((await viewer.client.post(`/api/social/posts/${post.id}/like`)).status).toBe(200);
    expect((await viewer.client.post(`/api/social/posts/${post.id}/comments`, { content: "hi" })).status).toBe(200);
    const single = (await viewer.client.get(`/api/social/posts/${post.id}`)).body.data.post;
    const feed = (await viewer.client.get("/api/social/feed?limit=100")).body.data.feed;
    expect(feed.find((p: any) => p.id === post.id)).toEqual(single);
    const tagged = (await viewer.client.get("/api/social/hashtags/same/posts")).body.data.posts;
    expect(tagged.find((p: any) => p.id === post.id)).toEqual(single);
    expect(single).toMatchObject({
      liked: true,
      likeCount: 1,
      commentCount: 1,
      repostCount: 0,
      bookmarked: false,
      reposted: false,
      isRepost: false,
    });
    expect(single.clientPostId).toBeUndefined();
    expect(single.author).toEqual({
      id: author.user.cuid,
      username: author.user.username,
      displayName: author.user.display_name,
      avatarUrl: null,
      isBot: false,
    });
    const [x, , z] = post.poll.options.map((o: any) => o.id);
    expect(single.poll.myVotes).toEqual([z, x]);
    expect(single.poll.options.map((o: any) => o.votes)).toEqual([2, 0, 1]);
    expect(single.poll.totalVoters).toBe(2);
    expect(single.poll.voted).toBe(true);
    const mine = (await author.client.get(`/api/social/posts/${post.id}`)).body.data.post;
    expect(mine.poll.myVotes).toEqual([x]);
    expect(mine.liked).toBe(false);
  });

  test("kept post views follow likes, comments, reposts, edits, renames and deletions by anyone", async () => {
    const author = await person();
    const viewer = await person();
    const other = await person();
    const id = await postIdAs(author.client, "kept #kept");
    const shown = async () => {
      const feed = (await viewer.client.get("/api/social/feed?limit=100")).body.data.feed;
      const post = feed.find((p: any) => p.id === id);
      // the same post on its own and in a hashtag's list, each from the same kept parts
      if (post) {
        expect((await viewer.client.get(`/api/social/posts/${id}`)).body.data.post).toEqual(post);
        const tagged = (await viewer.client.get("/api/social/hashtags/kept/posts")).body.data.posts;
        expect(tagged.find((p: any) => p.id === id)).toEqual(post);
      }
      return post;
    };
    expect(await shown()).toMatchObject({ content: "kept #kept", likeCount: 0, liked: false });
    expect((await other.client.post(`/api/social/posts/${id}/like`)).status).toBe(200);
    expect(await shown()).toMatchObject({ likeCount: 1, liked: false });
    expect((await viewer.client.post(`/api/social/posts/${id}/like`)).status).toBe(200);
    expect(await shown()).toMatchObject({ likeCount: 2, liked: true });
    expect((await other.client.post(`/api/social/posts/${id}/comments`, { content: "hi" })).status).toBe(200);
    expect(await shown()).toMatchObject({ commentCount: 1 });
    expect((await other.client.post(`/api/social/posts/${id}/repost`)).status).toBe(200);
    expect(await shown()).toMatchObject({ repostCount: 1, reposted: false });
    expect((await other.client.post(`/api/social/posts/${id}/repost`)).status).toBe(200);
    expect(await shown()).toMatchObject({ repostCount: 0 });
    expect((await author.client.patch(`/api/social/posts/${id}`, { content: "edited #kept" })).status).toBe(200);
    const edited = await shown();
    expect(edited).toMatchObject({ content: "edited #kept", likeCount: 2, commentCount: 1 });
    expect(edited.editedAt).not.toBeNull();
    expect((await author.client.patch("/api/account/profile", { displayName: "Renamed Author" })).status).toBe(200);
    expect((await shown()).author.displayName).toBe("Renamed Author");
    // a repost shows its original from the same kept parts, and follows it
    expect((await viewer.client.post(`/api/social/posts/${id}/repost`)).status).toBe(200);
    const feed = (await viewer.client.get("/api/social/feed?limit=100")).body.data.feed;
    const repost = feed.find((p: any) => p.repostOf?.id === id);
    expect(repost.repostOf).toEqual({ ...(await shown()), reposted: true, repostCount: 1 });
    expect((await author.client.delete(`/api/social/posts/${id}`)).status).toBe(200);
    expect(await shown()).toBeUndefined();
    expect((await viewer.client.get(`/api/social/posts/${id}`)).status).toBe(404);
  });

  test("a post list's JSON text is the JSON of its posts' shapes, byte for byte", async () => {
    const author = await person();
    const viewer = await person();
    const image = await uploadFor(server.app, author.user.id, "post");
    const withImage = await postAs(author.client, {
      content: 'quotes " and \\ and ünïcode 🎉',
      imageUrls: [image],
      clientPostId: "mine-1",
    });
    const polled = await postAs(author.client, { content: "vote", poll: { options: ["a", "b"] } });
    expect((await viewer.client.post(`/api/social/posts/${polled.id}/poll/vote`, { options: [1] })).status).toBe(200);
    expect((await viewer.client.post(`/api/social/posts/${withImage.id}/like`)).status).toBe(200);
    expect((await viewer.client.post(`/api/social/posts/${withImage.id}/bookmark`)).status).toBe(200);
    expect((await viewer.client.post(`/api/social/posts/${withImage.id}/repost`)).status).toBe(200);
    expect((await author.client.patch(`/api/social/posts/${polled.id}`, { content: "vote, edited" })).status).toBe(200);
    const kept = cachedPostViewsOf(server.app);
    for (const who of [author, viewer]) {
      const page = await feedPage(server.app.db, kept, who.user.id, { cursor: null, limit: 100, following: false });
      const mine = page.items.filter((v) => [author.user.id, viewer.user.id].includes(v.row.author_id));
      expect(mine.length).toBe(3);
      for (const v of mine) expect(postJson(v)).toBe(JSON.stringify(serializePost(v)));
      // and over HTTP, as the list routes send it
      const res = await fetch(`${server.url}/api/social/feed?limit=3`, {
        headers: { cookie: who.client.cookieHeader() },
      });
      expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
      const text = await res.text();
      const nextCursor = JSON.parse(text).data.pageInfo.nextCursor;
      expect(text).toBe(
        JSON.stringify({
          success: true,
          data: { feed: page.items.slice(0, 3).map(serializePost), pageInfo: { nextCursor } },
        }),
      );
    }
  });

  test("a post's kept JSON text follows the reader's marks, the author's profile and its counters", async () => {
    const author = await person();
    const reader = await person();
    const id = await postIdAs(author.client, "kept text");
    const shownText = async (who: Awaited<ReturnType<typeof person>>) => {
      const res = await fetch(`${server.url}/api/social/users/${author.user.username}/posts`, {
        headers: { cookie: who.client.cookieHeader() },
      });
      const page = await userPostsPage(server.app.db, cachedPostViewsOf(server.app), who.user.id, author.user, {
        cursor: null,
        limit: 20,
      });
      const text = await res.text();
      expect(text).toBe(
        JSON.stringify({
          success: true,
          data: { posts: page.items.map(serializePost), pageInfo: { nextCursor: null } },
        }),
      );
      return JSON.parse(text).data.posts.find((p: any) => p.id === id);
    };
    expect(await shownText(reader)).toMatchObject({ liked: false, bookmarked: false, likeCount: 0 });
    expect((await reader.client.post(`/api/social/posts/${id}/bookmark`)).status).toBe(200);
    // a bookmark changes no row of the post: the same kept core, another text
    expect(await shownText(reader)).toMatchObject({ liked: false, bookmarked: true, likeCount: 0 });
    expect(await shownText(author)).toMatchObject({ bookmarked: false, clientPostId: null });
    expect((await reader.client.post(`/api/social/posts/${id}/like`)).status).toBe(200);
    expect(await shownText(reader)).toMatchObject({ liked: true, bookmarked: true, likeCount: 1 });
    expect((await author.client.patch("/api/account/profile", { displayName: "Renamed Author" })).status).toBe(200);
    expect((await shownText(reader)).author.displayName).toBe("Renamed Author");
    expect((await reader.client.post(`/api/social/posts/${id}/bookmark`)).status).toBe(200);
    expect(await shownText(reader)).toMatchObject({ liked: true, bookmarked: false, likeCount: 1 });
  });

  test("bad ids and bad paging still answer in the envelope", async () => {
    const { client } = await person();
    let res = await client.get("/api/social/posts/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    res = await client.get(`/api/social/posts/${"x".repeat(65)}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    res = await client.get("/api/social/feed?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await client.get("/api/social/feed?cursor=bm9wZQ");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
  });
});
