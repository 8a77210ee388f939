import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { postIdAs } from "../../testing/posts";
import { quickPerson } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import { uploadFor } from "../../testing/media";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

async function commentAs(client: TestClient, postId: string, body: Record<string, unknown>) {
  const res = await client.post(`/api/social/posts/${postId}/comments`, body);
  expect(res.status).toBe(200);
  return res.body.data.comment;
}

const notificationsOf = (userId: number, type: string) =>
  server.app.db
    .selectFrom("notifications")
    .selectAll()
    .where("recipient_id", "=", userId)
    .where("type", "=", type as never)
    .execute();

describe("comments", () => {
  test("create, list oldest first with cursor, counts on the post, notification", async () => {
    const author = await person();
    const commenter = await person();
    const postId = await postIdAs(author.client, "discuss");
    const c1 = await commentAs(commenter.client, postId, { content: "first!" });
    expect(c1).toMatchObject({
      postId,
      replyToId: null,
      content: "first!",
      media: [],
      likeCount: 0,
      replyCount: 0,
      liked: false,
    });
    expect(c1.author.username).toBe(commenter.user.username);
    const c2 = await commentAs(author.client, postId, { content: "thanks" });
    const c3 = await commentAs(commenter.client, postId, { content: "third" });
    let res = await author.client.get(`/api/social/posts/${postId}/comments?limit=2`);
    expect(res.body.data.comments.map((c: any) => c.id)).toEqual([c1.id, c2.id]);
    res = await author.client.get(
      `/api/social/posts/${postId}/comments?limit=2&cursor=${res.body.data.pageInfo.nextCursor}`,
    );
    expect(res.body.data.comments.map((c: any) => c.id)).toEqual([c3.id]);
    expect(res.body.data.pageInfo.nextCursor).toBeNull();
    expect((await author.client.get(`/api/social/posts/${postId}`)).body.data.post.commentCount).toBe(3);
    expect((await notificationsOf(author.user.id, "comment")).length).toBe(2);
    expect((await author.client.get(`/api/social/comments/${c1.id}`)).body.data.comment.id).toBe(c1.id);
  });

  test("bad input", async () => {
    const { client } = await person();
    const postId = await postIdAs(client, "p");
    let res = await client.post(`/api/social/posts/${postId}/comments`, { content: "  " });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.post(`/api/social/posts/${postId}/comments`, { content: "x".repeat(2001) });
    expect(res.body.error.details.fieldErrors.content).toBeDefined();
    res = await client.post(`/api/social/posts/${postId}/comments`, { content: ["x"] });
    expect(res.status).toBe(422);
    res = await client.post(`/api/social/posts/${postId}/comments`, { content: "x", replyToId: "missing" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.replyToId).toBeDefined();
    res = await client.post(`/api/social/posts/${postId}/comments`, { media: [{ url: "https://example.com/x.png" }] });
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await client.post(`/api/social/posts/${postId}/comments`, { media: [{ url: "u", type: "gif" }] });
    expect(res.status).toBe(422);
    res = await client.post("/api/social/posts/missing/comments", { content: "x" });
    expect(res.status).toBe(404);
    expect((await client.get("/api/social/posts/missing/comments")).status).toBe(404);
    expect((await client.get(`/api/social/posts/${postId}/comments?limit=1000`)).status).toBe(400);
    // a reply must belong to the same post
    const other = await postIdAs(client, "other");
    const c = await commentAs(client, other, { content: "elsewhere" });
    res = await client.post(`/api/social/posts/${postId}/comments`, { content: "x", replyToId: c.id });
    expect(res.body.error.details.fieldErrors.replyToId).toBeDefined();
  });

  test("media from comment uploads", async () => {
    const { client, user } = await person();
    const postId = await postIdAs(client, "p");
    const image = await uploadFor(server.app, user.id, "comment-image");
    const voice = await uploadFor(server.app, user.id, "comment-voice");
    const postImage = await uploadFor(server.app, user.id, "post");
    const c = await commentAs(client, postId, { media: [{ url: image }, { url: voice, type: "voice" }] });
    expect(c.media.map((m: any) => [m.type, m.url])).toEqual([
      ["image", image],
      ["voice", voice],
    ]);
    let res = await client.post(`/api/social/posts/${postId}/comments`, { media: [{ url: postImage }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["media.0.url"]).toBeDefined();
    res = await client.post(`/api/social/posts/${postId}/comments`, { media: [{ url: image, type: "video" }] });
    expect(res.body.error.details.fieldErrors["media.0.type"]).toBeDefined();
  });

  test("threads: replies, reply notifications, delete rights", async () => {
    const author = await person();
    const a = await person();
    const b = await person();
    const stranger = await person();
    const postId = await postIdAs(author.client, "thread");
    const root = await commentAs(a.client, postId, { content: "root" });
    const reply = await commentAs(b.client, postId, { content: "reply", replyToId: root.id });
    expect(reply.replyToId).toBe(root.id);
    // replies are not top-level comments
    let res = await author.client.get(`/api/social/posts/${postId}/comments`);
    expect(res.body.data.comments.map((c: any) => [c.id, c.replyCount])).toEqual([[root.id, 1]]);
    res = await author.client.get(`/api/social/comments/${root.id}/replies`);
    expect(res.body.data.comments.map((c: any) => c.id)).toEqual([reply.id]);
    expect((await notificationsOf(a.user.id, "reply")).length).toBe(1);
    expect((await author.client.get("/api/social/comments/missing/replies")).status).toBe(404);
    // like toggle
    res = await author.client.post(`/api/social/comments/${reply.id}/like`);
    expect(res.body.data).toEqual({ liked: true, likeCount: 1 });
    expect(
      (await author.client.get(`/api/social/comments/${reply.id}/likes`)).body.data.users.map((u: any) => u.username),
    ).toEqual([author.user.username]);
    res = await author.client.post(`/api/social/comments/${reply.id}/like`);
    expect(res.body.data).toEqual({ liked: false, likeCount: 0 });
    expect((await author.client.post("/api/social/comments/missing/like")).status).toBe(404);
    // delete: a stranger cannot, the comment's author and the post's author can
    res = await stranger.client.delete(`/api/social/comments/${reply.id}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    res = await b.client.delete(`/api/social/comments/${reply.id}`);
    expect(res.status).toBe(200);
    expect((await author.client.get(`/api/social/comments/${reply.id}`)).status).toBe(404);
    res = await author.client.delete(`/api/social/comments/${root.id}`);
    expect(res.status).toBe(200);
    expect((await author.client.get(`/api/social/posts/${postId}/comments`)).body.data.comments).toEqual([]);
    expect((await author.client.delete(`/api/social/comments/${root.id}`)).status).toBe(404);
  });

  test("blocked accounts neither comment on each other's posts nor see each other's comments", async () => {
    const author = await person();
    const blocker = await person();
    const bystander = await person();
    const postId = await postIdAs(author.client, "open post");
    const bystanderPost = await postIdAs(bystander.client, "neutral ground");
    const early = await commentAs(blocker.client, bystanderPost, { content: "before the block" });
    await commentAs(author.client, bystanderPost, { content: "author's comment" });
    expect((await blocker.client.post(`/api/social/users/${author.user.username}/block`)).status).toBe(200);
    let res = await blocker.client.post(`/api/social/posts/${postId}/comments`, { content: "hey" });
    expect(res.status).toBe(404);
    const blockerPost = await postIdAs(blocker.client, "mine");
    res = await author.client.post(`/api/social/posts/${blockerPost}/comments`, { content: "hey" });
    expect(res.status).toBe(404);
    // on a third person's post each sees the comments minus the other's
    const seenByAuthor = (
      await author.client.get(`/api/social/posts/${bystanderPost}/comments`)
    ).body.data.comments.map((c: any) => c.content);
    expect(seenByAuthor).toEqual(["author's comment"]);
    const seenByBlocker = (
      await blocker.client.get(`/api/social/posts/${bystanderPost}/comments`)
    ).body.data.comments.map((c: any) => c.content);
    expect(seenByBlocker).toEqual(["before the block"]);
    expect((await author.client.get(`/api/social/comments/${early.id}`)).status).toBe(404);
    res = await author.client.post(`/api/social/posts/${bystanderPost}/comments`, {
      content: "x",
      replyToId: early.id,
    });
    expect(res.status).toBe(400);
    const all = (await bystander.client.get(`/api/social/posts/${bystanderPost}/comments`)).body.data.comments;
    expect(all).toHaveLength(2);
  });

  test("mentions in posts and comments notify; hashtags in posts too", async () => {
    const author = await person();
    const friend = await person();
    const postId = await postIdAs(
      author.client,
      `hi @${friend.user.username} and @nobody_known, mail a@${friend.user.username}.com`,
    );
    let notes = await notificationsOf(friend.user.id, "mention");
    expect(notes).toHaveLength(1);
    // editing without a new mention does not notify again
    await author.client.patch(`/api/social/posts/${postId}`, { content: `hello again @${friend.user.username}` });
    expect(await notificationsOf(friend.user.id, "mention")).toHaveLength(1);
    await commentAs(author.client, postId, { content: `look @${friend.user.username.toUpperCase()}` });
    notes = await notificationsOf(friend.user.id, "mention");
    expect(notes).toHaveLength(2);
    expect(notes[1]!.comment_id).not.toBeNull();
  });
});
