import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { uploadFor } from "../testing/media";
import { startTestS3, type TestS3 } from "../testing/s3";
import { startTestServer, type TestServer } from "../testing/server";
import { queryRow } from "../testing/sql";
import { runCleanup } from "./housekeeping";

/*
 * The files of deleted things go once nothing references them: a message deleted for
 * everyone, a deleted post or comment, a deleted account's avatar and cover; a file still
 * used elsewhere (a forward of the same upload) stays.
 */

const keyOf = (url: string) => url.split("/").pop()!;

async function released(server: TestServer): Promise<number> {
  const run = await runCleanup(server.app, "uploads:released");
  expect(run.ok).toBe(true);
  return run.result as number;
}

const status = async (url: string) => (await fetch(url)).status;

describe("files of deleted things (local files)", () => {
  let server: TestServer;
  let a: { user: { id: number; username: string }; client: TestClient };
  let b: { user: { id: number; username: string }; client: TestClient };
  const onDisk = (url: string) => existsSync(join(server.dataDir, "files", keyOf(url).slice(0, 2), keyOf(url)));
  const uploadRow = (url: string) =>
    queryRow(server.app.db, "SELECT id FROM uploads WHERE storage_key = ?", keyOf(url));

  beforeAll(async () => {
    server = await startTestServer();
    a = await quickPerson(server);
    b = await quickPerson(server);
  });
  afterAll(() => server.stop());

  test("a message deleted for everyone loses its file; the same upload forwarded elsewhere keeps it", async () => {
    const cid = (await a.client.post(`/api/social/users/${b.user.username}/message`, {})).body.data.conversationId;
    const other = (await a.client.post("/api/social/groups", { title: "Elsewhere", members: [] })).body.data
      .conversationId;
    const gone = await uploadFor(server.app, a.user.id, "chat-image");
    const kept = await uploadFor(server.app, a.user.id, "chat-image");
    const send = async (url: string) => {
      const res = await a.client.post(`/api/social/messages/${cid}`, {
        content: "look",
        media: [{ type: "image", url }],
      });
      expect(res.status).toBe(200);
      return res.body.data.message.id as string;
    };
    const first = await send(gone);
    const second = await send(kept);
    const forwarded = await a.client.post(`/api/social/messages/${cid}/${second}/forward`, {
      toConversationId: other,
      clientMessageId: "forward-kept",
    });
    expect(forwarded.status).toBe(200);
    const thumb = (await queryRow<{ thumb_url: string }>(
      server.app.db,
      "SELECT thumb_url FROM uploads WHERE storage_key = ?",
      keyOf(gone),
    ))!.thumb_url;
    expect(await status(gone)).toBe(200);
    expect(await status(thumb)).toBe(200);

    for (const mid of [first, second])
      expect((await a.client.delete(`/api/social/messages/${cid}/${mid}?forEveryone=true`)).status).toBe(200);
    expect(await released(server)).toBe(1);
    expect(await status(gone)).toBe(404);
    expect(await status(thumb)).toBe(404);
    expect(onDisk(gone)).toBe(false);
    expect(await uploadRow(gone)).toBeNull();
    expect(await status(kept)).toBe(200);
    expect(await uploadRow(kept)).not.toBeNull();
    // kept once checked: the next run has nothing to look at
    expect(await released(server)).toBe(0);
    expect(await status(kept)).toBe(200);
  });

  test("a message deleted for me only keeps its file", async () => {
    const cid = (await a.client.post(`/api/social/users/${b.user.username}/message`, {})).body.data.conversationId;
    const url = await uploadFor(server.app, a.user.id, "chat-image");
    const sent = await a.client.post(`/api/social/messages/${cid}`, { media: [{ type: "image", url }] });
    const mid = sent.body.data.message.id;
    expect((await a.client.delete(`/api/social/messages/${cid}/${mid}`)).status).toBe(200);
    expect(await released(server)).toBe(0);
    expect(await status(url)).toBe(200);
  });

  test("a deleted comment's files go, with its replies'; a deleted post's images go, with its comments'", async () => {
    const postImage = await uploadFor(server.app, a.user.id, "post");
    const post = (await a.client.post("/api/social/posts", { content: "with a picture", imageUrls: [postImage] })).body
      .data.post;
    const comment = async (who: typeof a, body: Record<string, unknown>) => {
      const res = await who.client.post(`/api/social/posts/${post.id}/comments`, body);
      expect(res.status).toBe(200);
      return res.body.data.comment.id as string;
    };
    const topImage = await uploadFor(server.app, b.user.id, "comment-image");
    const replyImage = await uploadFor(server.app, a.user.id, "comment-image");
    const stayingImage = await uploadFor(server.app, b.user.id, "comment-image");
    const top = await comment(b, { content: "top", media: [{ url: topImage }] });
    await comment(a, { content: "reply", replyToId: top, media: [{ url: replyImage }] });
    const staying = await comment(b, { content: "another", media: [{ url: stayingImage }] });
    for (const url of [postImage, topImage, replyImage, stayingImage]) expect(await status(url)).toBe(200);

    expect((await b.client.delete(`/api/social/comments/${top}`)).status).toBe(200);
    expect(await released(server)).toBe(2);
    expect(await status(topImage)).toBe(404);
    expect(await status(replyImage)).toBe(404);
    expect(await status(stayingImage)).toBe(200);
    expect(await status(postImage)).toBe(200);

    expect((await a.client.delete(`/api/social/posts/${post.id}`)).status).toBe(200);
    expect(await released(server)).toBe(2);
    expect(await status(postImage)).toBe(404);
    expect(await status(stayingImage)).toBe(404);
    expect(staying).toBeTruthy();
  });

  test("a deleted account's avatar, cover and posts' images go", async () => {
    const leaving = await signedInClient(server);
    const avatar = await uploadFor(server.app, leaving.user.id, "avatar");
    const cover = await uploadFor(server.app, leaving.user.id, "cover");
    const image = await uploadFor(server.app, leaving.user.id, "post");
    expect((await leaving.client.patch("/api/account/profile", { avatarUrl: avatar, coverUrl: cover })).status).toBe(
      200,
    );
    expect((await leaving.client.post("/api/social/posts", { content: "bye", imageUrls: [image] })).status).toBe(200);
    for (const url of [avatar, cover, image]) expect(await status(url)).toBe(200);
    expect((await leaving.client.delete("/api/account", { password: leaving.user.password })).status).toBe(200);
    expect(await released(server)).toBe(3);
    for (const url of [avatar, cover, image]) expect(await status(url)).toBe(404);
  });
});

describe("files of deleted things (an S3 bucket)", () => {
  let s3: TestS3;
  let server: TestServer;
  beforeAll(async () => {
    s3 = await startTestS3();
    server = await startTestServer(s3.settings);
  });
  afterAll(async () => {
    await server?.stop();
    await s3?.stop();
  });

  test("a deleted post's image leaves the bucket", async () => {
    const { user, client } = await quickPerson(server);
    const image = await uploadFor(server.app, user.id, "post");
    const post = (await client.post("/api/social/posts", { content: "in the bucket", imageUrls: [image] })).body.data
      .post;
    expect(await s3.client.file(keyOf(image)).exists()).toBe(true);
    expect((await client.delete(`/api/social/posts/${post.id}`)).status).toBe(200);
    expect(await released(server)).toBe(1);
    expect(await s3.client.file(keyOf(image)).exists()).toBe(false);
    expect(await status(image)).toBe(404);
  });
});
