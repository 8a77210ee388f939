import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import { uploadFor } from "../../testing/media";
import type { TestServer } from "../../testing/server";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";

let server: TestServer;
let admin: TestClient;
let adminName: string;

beforeAll(async () => {
  ({ server, admin, adminName } = await adminWorld());
});
afterAll(() => server.stop());

const feedIds = async (c: TestClient) => ((await c.get("/api/social/feed")).body.data.feed as any[]).map((p) => p.id);

describe("removing content", () => {
  test("a post is gone from the feed and its page; the removal is logged", async () => {
    const author = await quickPerson(server);
    const reader = await quickPerson(server);
    const post = (await author.client.post("/api/social/posts", { content: "Spam spam lovely spam" })).body.data.post;
    expect(await feedIds(reader.client)).toContain(post.id);

    const preview = await admin.get(`/api/admin/content/posts/${post.id}`);
    expect(preview.body.data.content).toMatchObject({
      kind: "post",
      id: post.id,
      text: "Spam spam lovely spam",
      author: { username: author.user.username },
    });
    const res = await admin.delete(`/api/admin/content/posts/${post.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.removed).toMatchObject({ kind: "post", id: post.id });
    expect(await feedIds(reader.client)).not.toContain(post.id);
    expectError(await reader.client.get(`/api/social/posts/${post.id}`), 404, "NOT_FOUND");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      actor: { username: adminName },
      action: "post.remove",
      target: { type: "post", id: post.id, label: `@${author.user.username}: Spam spam lovely spam` },
      details: { author: author.user.username },
    });
    expectError(await admin.delete(`/api/admin/content/posts/${post.id}`), 404, "NOT_FOUND");
  });

  test("even a post of someone who blocked the admin can be removed", async () => {
    const author = await quickPerson(server);
    await author.client.post(`/api/social/users/${adminName}/block`);
    const post = (await author.client.post("/api/social/posts", { content: "hidden from the admin" })).body.data.post;
    expect((await admin.delete(`/api/admin/content/posts/${post.id}`)).status).toBe(200);
    expectError(await author.client.get(`/api/social/posts/${post.id}`), 404, "NOT_FOUND");
  });

  test("a comment is gone from its post's comments", async () => {
    const author = await quickPerson(server);
    const commenter = await quickPerson(server);
    const post = (await author.client.post("/api/social/posts", { content: "Ask me anything" })).body.data.post;
    const comment = (
      await commenter.client.post(`/api/social/posts/${post.id}/comments`, { content: "rude words here" })
    ).body.data.comment;
    expect((await admin.get(`/api/admin/content/comments/${comment.id}`)).body.data.content).toMatchObject({
      kind: "comment",
      text: "rude words here",
    });
    expect((await admin.delete(`/api/admin/content/comments/${comment.id}`)).status).toBe(200);
    const left = (await author.client.get(`/api/social/posts/${post.id}/comments`)).body.data.comments;
    expect(left).toEqual([]);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "comment.remove",
      target: { type: "comment", id: comment.id },
    });
  });

  test("a story is gone for its viewers", async () => {
    const author = await quickPerson(server);
    const fan = await quickPerson(server);
    await fan.client.post(`/api/social/users/${author.user.username}/follow`);
    const mediaUrl = await uploadFor(server.app, author.user.id, "story");
    const story = (await author.client.post("/api/social/stories", { mediaUrl, caption: "look" })).body.data.story;
    expect((await fan.client.get(`/api/social/stories/${story.id}`)).status).toBe(200);
    expect((await admin.delete(`/api/admin/content/stories/${story.id}`)).body.data.removed).toMatchObject({
      kind: "story",
      text: "look",
    });
    expectError(await fan.client.get(`/api/social/stories/${story.id}`), 404, "NOT_FOUND");
    expect((await fan.client.get("/api/social/stories")).body.data.groups).toEqual([]);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "story.remove",
      target: { type: "story", id: story.id },
    });
    expectError(await admin.get(`/api/admin/content/stories/${story.id}`), 404, "NOT_FOUND");
  });

  test("unknown ids are 404 and nothing is logged", async () => {
    const before = (await auditEntries(admin, 100)).length;
    for (const kind of ["posts", "comments", "stories"]) {
      expectError(await admin.get(`/api/admin/content/${kind}/nosuchid`), 404, "NOT_FOUND");
      expectError(await admin.delete(`/api/admin/content/${kind}/nosuchid`), 404, "NOT_FOUND");
    }
    expectError(await admin.delete(`/api/admin/content/posts/${"x".repeat(65)}`), 422, "VALIDATION_ERROR");
    expect((await auditEntries(admin, 100)).length).toBe(before);
  });
});
