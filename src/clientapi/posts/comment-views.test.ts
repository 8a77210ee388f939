import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import {
  commentsPage,
  findPostThread,
  findVisibleComment,
  cachedCommentViewsOf,
  loadCommentViews,
} from "../../domain/comments/service";
import { findVisiblePost } from "../../domain/posts/service";
import { decodeCursor } from "../../lib/paging";
import { startTestServer, type TestServer } from "../../testing/server";
import { countingDb } from "../../testing/statements";
import { postIdAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";
import { uploadFor } from "../../testing/media";
import { serializeComment } from "./serialize";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

async function commentAs(
  client: Awaited<ReturnType<typeof person>>["client"],
  postId: string,
  body: Record<string, unknown>,
): Promise<any> {
  const res = await client.post(`/api/social/posts/${postId}/comments`, body);
  expect(res.status).toBe(200);
  return res.body.data.comment;
}

const postRowId = async (cuid: string) =>
  (await server.app.db.selectFrom("posts").select("id").where("cuid", "=", cuid).executeTakeFirstOrThrow()).id;
const commentRow = (cuid: string) =>
  server.app.db.selectFrom("comments").selectAll().where("cuid", "=", cuid).executeTakeFirstOrThrow();

describe("comment views in few statements", () => {
  test("a page of comments or replies is one statement once its comments and authors are kept, whatever the page holds", async () => {
    const author = await person();
    const reader = await person();
    const postId = await postIdAs(author.client, "discuss");
    const top = [];
    for (let i = 0; i < 4; i++)
      top.push(await commentAs(i % 2 ? reader.client : author.client, postId, { content: `c${i}` }));
    for (let i = 0; i < 3; i++) await commentAs(author.client, postId, { content: `r${i}`, replyToId: top[0].id });
    expect((await reader.client.post(`/api/social/comments/${top[0].id}/like`)).status).toBe(200);
    expect((await author.client.post(`/api/social/comments/${top[0].id}/like`)).status).toBe(200);

    const { db, counter } = countingDb(server.app.db);
    const pid = await postRowId(postId);
    // the post and whether the reader may see it (authors live, no blocks): one statement
    counter.statements = 0;
    const post = await findVisiblePost(db, reader.user.id, postId);
    expect(post.id).toBe(pid);
    expect(counter.statements).toBe(1);
    // the comments route reads only its id, cuid and author, under the same rule, with its
    // thread's state for the reader (its version, blocks, likes in a kept page's range)
    counter.statements = 0;
    expect(await findPostThread(db, reader.user.id, postId, { lo: 1, hi: 0 })).toMatchObject({
      post: { id: pid, cuid: postId, author_id: author.user.id },
      thread: { hidesNobody: true, likedInRange: false },
    });
    expect(counter.statements).toBe(1);
    const kept = cachedCommentViewsOf(server.app);
    // the likes raised the first comment's version since its answer made its view: read once more
    counter.statements = 0;
    await commentsPage(db, kept, reader.user.id, { post, replyTo: null }, { cursor: null, limit: 3 });
    expect(counter.statements).toBe(2);
    counter.statements = 0;
    const page = await commentsPage(db, kept, reader.user.id, { post, replyTo: null }, { cursor: null, limit: 3 });
    expect(counter.statements).toBe(1);
    expect(page.items.map((v) => v.row.content)).toEqual(["c0", "c1", "c2"]);
    expect(page.items.map((v) => [v.likeCount, v.replyCount, v.liked, v.postCuid, v.replyToCuid, v.author.id])).toEqual(
      [
        [2, 3, true, postId, null, author.user.id],
        [0, 0, false, postId, null, reader.user.id],
        [0, 0, false, postId, null, author.user.id],
      ],
    );
    expect(page.nextCursor).not.toBeNull();

    counter.statements = 0;
    const rest = await commentsPage(
      db,
      kept,
      reader.user.id,
      { post, replyTo: null },
      { cursor: decodeCursor(page.nextCursor!), limit: 3 },
    );
    expect(counter.statements).toBe(1);
    expect(rest.items.map((v) => v.row.content)).toEqual(["c3"]);
    expect(rest.nextCursor).toBeNull();

    const parent = await commentRow(top[0].id);
    counter.statements = 0;
    const replies = await commentsPage(
      db,
      kept,
      author.user.id,
      { post, replyTo: parent },
      { cursor: null, limit: 10 },
    );
    expect(counter.statements).toBe(1);
    expect(replies.items.map((v) => [v.row.content, v.replyToCuid, v.liked])).toEqual([
      ["r0", top[0].id, false],
      ["r1", top[0].id, false],
      ["r2", top[0].id, false],
    ]);

    counter.statements = 0;
    const found = await findVisibleComment(db, reader.user.id, top[0].id);
    expect(found.comment.id).toBe(parent.id);
    expect(found.post.cuid).toBe(postId);
    const views = await loadCommentViews(db, kept, reader.user.id, [found.comment]);
    expect(counter.statements).toBe(2);
    expect(views[0]!.likeCount).toBe(2);
    counter.statements = 0;
    await expect(findVisibleComment(db, reader.user.id, "no-such-comment")).rejects.toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(counter.statements).toBe(1);

    // changed outside the app's code (as the CLI or another node would): read again
    await sql`UPDATE comments SET content = 'changed' WHERE cuid = ${top[1].id}`.execute(server.app.db);
    await sql`UPDATE users SET display_name = 'Renamed' WHERE id = ${reader.user.id}`.execute(server.app.db);
    counter.statements = 0;
    const changed = await commentsPage(db, kept, author.user.id, { post, replyTo: null }, { cursor: null, limit: 3 });
    expect(changed.items.map((v) => [v.row.content, v.author.display_name])).toEqual([
      ["c0", author.user.display_name],
      ["changed", "Renamed"],
      ["c2", author.user.display_name],
    ]);
    expect(counter.statements).toBe(3);
  });

  test("kept comment views follow likes, replies, deletions and renames by anyone", async () => {
    const author = await person();
    const viewer = await person();
    const other = await person();
    const postId = await postIdAs(author.client, "kept comments");
    const root = await commentAs(author.client, postId, { content: "root" });
    const shown = async () => {
      const list = (await viewer.client.get(`/api/social/posts/${postId}/comments`)).body.data.comments;
      const c = list.find((x: any) => x.id === root.id);
      if (c) expect((await viewer.client.get(`/api/social/comments/${root.id}`)).body.data.comment).toEqual(c);
      return c;
    };
    expect(await shown()).toMatchObject({ content: "root", likeCount: 0, replyCount: 0, liked: false });
    expect((await other.client.post(`/api/social/comments/${root.id}/like`)).status).toBe(200);
    expect(await shown()).toMatchObject({ likeCount: 1, liked: false });
    expect((await viewer.client.post(`/api/social/comments/${root.id}/like`)).status).toBe(200);
    expect(await shown()).toMatchObject({ likeCount: 2, liked: true });
    const reply = await commentAs(other.client, postId, { content: "reply", replyToId: root.id });
    expect(await shown()).toMatchObject({ replyCount: 1 });
    const replies = (await viewer.client.get(`/api/social/comments/${root.id}/replies`)).body.data.comments;
    expect(replies.map((c: any) => [c.content, c.replyToId, c.author.username])).toEqual([
      ["reply", root.id, other.user.username],
    ]);
    expect((await other.client.patch("/api/account/profile", { displayName: "Renamed Other" })).status).toBe(200);
    const renamed = (await viewer.client.get(`/api/social/comments/${root.id}/replies`)).body.data.comments;
    expect(renamed[0].author.displayName).toBe("Renamed Other");
    expect((await other.client.delete(`/api/social/comments/${reply.id}`)).status).toBe(200);
    expect(await shown()).toMatchObject({ replyCount: 0, likeCount: 2 });
    expect((await author.client.delete(`/api/social/comments/${root.id}`)).status).toBe(200);
    expect(await shown()).toBeUndefined();
    expect((await viewer.client.get(`/api/social/comments/${root.id}`)).status).toBe(404);
  });

  test("the same compiled queries still apply each viewer's blocks and likes", async () => {
    const author = await person();
    const friend = await person();
    const blocker = await person();
    const postId = await postIdAs(author.client, "thread");
    const root = await commentAs(author.client, postId, { content: "root" });
    await commentAs(friend.client, postId, { content: "friend's reply", replyToId: root.id });
    const blockedReply = await commentAs(blocker.client, postId, { content: "blocker's reply", replyToId: root.id });
    expect((await blocker.client.post(`/api/social/users/${friend.user.username}/block`)).status).toBe(200);
    expect((await friend.client.post(`/api/social/comments/${root.id}/like`)).status).toBe(200);

    // the friend no longer sees the blocker's reply, nor counts it
    let res = await friend.client.get(`/api/social/posts/${postId}/comments`);
    expect(res.status).toBe(200);
    expect(res.body.data.comments.map((c: any) => [c.content, c.replyCount, c.liked, c.likeCount])).toEqual([
      ["root", 1, true, 1],
    ]);
    res = await friend.client.get(`/api/social/comments/${root.id}/replies`);
    expect(res.body.data.comments.map((c: any) => c.content)).toEqual(["friend's reply"]);
    expect((await friend.client.get(`/api/social/comments/${blockedReply.id}`)).status).toBe(404);
    // a comment looks the same on its own as in the list
    const single = (await friend.client.get(`/api/social/comments/${root.id}`)).body.data.comment;
    expect(single).toEqual((await friend.client.get(`/api/social/posts/${postId}/comments`)).body.data.comments[0]);

    // the author sees both, and has not liked
    res = await author.client.get(`/api/social/posts/${postId}/comments`);
    expect(res.body.data.comments.map((c: any) => [c.content, c.replyCount, c.liked, c.likeCount])).toEqual([
      ["root", 2, false, 1],
    ]);
    res = await author.client.get(`/api/social/comments/${root.id}/replies?limit=1`);
    expect(res.body.data.comments.map((c: any) => c.content)).toEqual(["friend's reply"]);
    res = await author.client.get(
      `/api/social/comments/${root.id}/replies?limit=1&cursor=${res.body.data.pageInfo.nextCursor}`,
    );
    expect(res.body.data.comments.map((c: any) => [c.content, c.replyToId, c.author.username])).toEqual([
      ["blocker's reply", root.id, blocker.user.username],
    ]);
    expect(res.body.data.pageInfo.nextCursor).toBeNull();

    // a deleted author's comment disappears from lists and lookups
    await server.app.db
      .updateTable("users")
      .set({ deleted_at: server.app.clock.now() })
      .where("id", "=", blocker.user.id)
      .execute();
    expect((await author.client.get(`/api/social/comments/${blockedReply.id}`)).status).toBe(404);
    res = await author.client.get(`/api/social/comments/${root.id}/replies`);
    expect(res.body.data.comments.map((c: any) => c.content)).toEqual(["friend's reply"]);
  });

  test("a comment list's JSON text is the JSON of its comments' shapes, byte for byte, as likes, replies and blocks change it", async () => {
    const author = await person();
    const liker = await person();
    const blocked = await person();
    const postId = await postIdAs(author.client, "texts");
    const image = await uploadFor(server.app, author.user.id, "comment-image");
    const root = await commentAs(author.client, postId, {
      content: 'quotes " and \\ and ünïcode 🎉',
      media: [{ url: image }],
    });
    await commentAs(liker.client, postId, { content: "second" });
    const post = await findVisiblePost(server.app.db, author.user.id, postId);
    const place = { post, replyTo: null };
    const kept = cachedCommentViewsOf(server.app);
    // each reader's answer is the JSON of the views made for them, with the page's cursor
    const check = async (who: Awaited<ReturnType<typeof person>>, path: string, expected: unknown[]) => {
      const res = await fetch(`${server.url}${path}?limit=1`, { headers: { cookie: who.client.cookieHeader() } });
      expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
      const text = await res.text();
      const { nextCursor } = JSON.parse(text).data.pageInfo;
      const at = path.includes("/replies")
        ? { post, replyTo: (await findVisibleComment(server.app.db, who.user.id, root.id)).comment }
        : place;
      const page = await commentsPage(server.app.db, kept, who.user.id, at, { cursor: null, limit: 1 });
      expect(text).toBe(
        JSON.stringify({
          success: true,
          data: { comments: page.items.map(serializeComment), pageInfo: { nextCursor } },
        }),
      );
      expect(JSON.parse(text).data.comments.map((c: any) => [c.content, c.likeCount, c.replyCount, c.liked])).toEqual(
        expected,
      );
    };
    const comments = `/api/social/posts/${postId}/comments`;
    const rootText = root.content;
    await check(liker, comments, [[rootText, 0, 0, false]]);
    await check(liker, comments, [[rootText, 0, 0, false]]);
    expect((await liker.client.post(`/api/social/comments/${root.id}/like`)).status).toBe(200);
    await check(liker, comments, [[rootText, 1, 0, true]]);
    await check(author, comments, [[rootText, 1, 0, false]]);
    await check(liker, comments, [[rootText, 1, 0, true]]);
    await commentAs(blocked.client, postId, { content: "a reply", replyToId: root.id });
    await check(liker, comments, [[rootText, 1, 1, true]]);
    await check(liker, `/api/social/comments/${root.id}/replies`, [["a reply", 0, 0, false]]);
    // a block changes the reply count one reader sees, not the other's
    expect((await liker.client.post(`/api/social/users/${blocked.user.username}/block`)).status).toBe(200);
    await check(liker, comments, [[rootText, 1, 0, true]]);
    await check(author, comments, [[rootText, 1, 1, false]]);
    await check(liker, comments, [[rootText, 1, 0, true]]);
    await check(liker, `/api/social/comments/${root.id}/replies`, []);
    expect((await author.client.patch("/api/account/profile", { displayName: "Renamed" })).status).toBe(200);
    await check(liker, comments, [[rootText, 1, 0, true]]);
  });

  test("bad ids and bad paging answer in the envelope", async () => {
    const { client } = await person();
    const postId = await postIdAs(client, "empty");
    let res = await client.get(`/api/social/posts/${postId}/comments`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ comments: [], pageInfo: { nextCursor: null } });
    res = await client.get("/api/social/comments/does-not-exist/replies");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    res = await client.get(`/api/social/posts/${postId}/comments?limit=0`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await client.get(`/api/social/posts/${postId}/comments?cursor=bm9wZQ`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
  });
});
