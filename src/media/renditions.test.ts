import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../testing/admin";
import { botCall, createBotViaApi, openChat } from "../testing/botapi";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { startTestServer, type TestServer } from "../testing/server";
import { postUpload } from "../testing/uploads";
import { rebuildDerived } from "../ops/rebuild-derived";
import { loadSharp } from "./sharp";
import { fileStore } from "./store";
import { fileKeyFromUrl } from "./uploads";

let s: TestServer;
let alice: { client: TestClient; user: { id: number; username: string } };
let bob: { client: TestClient; user: { id: number; username: string } };

/** File URLs are absolute under baseUrl; tests fetch the same path on the test server's port. */
const local = (url: string) => s.url + new URL(url).pathname;

/** Format and size of the image a file URL serves. */
async function served(url: string): Promise<{ type: string | null; format?: string; width?: number; height?: number }> {
  const res = await fetch(local(url));
  expect(res.status).toBe(200);
  const sharp = await loadSharp(s.app);
  const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
  return { type: res.headers.get("content-type"), format: meta.format, width: meta.width, height: meta.height };
}

async function upload(client: TestClient, kind: string, width: number, height: number) {
  const res = await postUpload(client, kind, await pngOf(s.app, width, height), { type: "image/png" });
  expect(res.status).toBe(200);
  return res.body.data as { url: string; renditions: Array<{ url: string; width: number; height: number }> };
}

beforeAll(async () => {
  s = await startTestServer();
  alice = await signedInClient(s);
  bob = await signedInClient(s);
});
afterAll(() => s.stop());

describe("display renditions", () => {
  test("an image gets 640 and 1280 px WebP copies at upload, stored and served like the thumbnail", async () => {
    const up = await upload(alice.client, "post", 2000, 1000);
    expect(up.renditions.map((r) => [r.width, r.height])).toEqual([
      [640, 320],
      [1280, 640],
    ]);
    for (const r of up.renditions) {
      expect(r.url).toMatch(/\/files\/[A-Za-z0-9_-]{24}-d(640|1280)\.webp$/);
      expect(await served(r.url)).toEqual({ type: "image/webp", format: "webp", width: r.width, height: r.height });
    }
  });

  test("never upscaled: a smaller image's last copy is its own size, one its thumbnail holds has none", async () => {
    const mid = await upload(alice.client, "post", 800, 600);
    expect(mid.renditions.map((r) => [r.width, r.height])).toEqual([
      [640, 480],
      [800, 600],
    ]);
    const small = await upload(alice.client, "comment-image", 500, 400);
    expect(small.renditions.map((r) => [r.width, r.height])).toEqual([[500, 400]]);
    expect(await served(small.renditions[0]!.url)).toMatchObject({ width: 500, height: 400 });
    const tiny = await upload(alice.client, "comment-image", 100, 80);
    expect(tiny.renditions ?? []).toEqual([]);
  });

  test("posts, comments and messages list the renditions of their images", async () => {
    const up = await upload(alice.client, "post", 1600, 1200);
    const created = await alice.client.post("/api/social/posts", { content: "sharp", imageUrls: [up.url] });
    expect(created.status).toBe(200);
    expect(created.body.data.post.images[0].renditions).toEqual(up.renditions);

    const c = await upload(alice.client, "comment-image", 900, 900);
    const comment = await alice.client.post(`/api/social/posts/${created.body.data.post.id}/comments`, {
      media: [{ url: c.url }],
    });
    expect(comment.status).toBe(200);
    expect(comment.body.data.comment.media[0].renditions).toEqual(c.renditions);

    const m = await upload(alice.client, "chat-image", 700, 300);
    const cid = (await alice.client.post(`/api/social/users/${bob.user.username}/message`, {})).body.data
      .conversationId as string;
    const sent = await alice.client.post(`/api/social/messages/${cid}`, { media: [{ type: "image", url: m.url }] });
    expect(sent.status).toBe(200);
    const seen = await bob.client.get(`/api/social/messages/${cid}?limit=5`);
    expect(seen.body.data.messages[0].media[0].renditions.map((r: any) => [r.width, r.height])).toEqual([
      [640, 274],
      [700, 300],
    ]);
  });

  test("media rebuild-derived makes them for images uploaded before they existed, and the posts showing them follow", async () => {
    const up = await upload(alice.client, "post", 1500, 1000);
    const created = await alice.client.post("/api/social/posts", { content: "older", imageUrls: [up.url] });
    const postId = created.body.data.post.id as string;
    // as an instance from before renditions: none listed, none stored, none in the post
    const store = fileStore(s.app);
    for (const r of up.renditions) await store.delete(fileKeyFromUrl(s.app, r.url)!);
    const key = fileKeyFromUrl(s.app, up.url)!;
    await s.app.db.updateTable("uploads").set({ renditions: null }).where("storage_key", "=", key).execute();
    const post = await s.app.db
      .selectFrom("posts")
      .select(["id", "images"])
      .where("cuid", "=", postId)
      .executeTakeFirstOrThrow();
    const images = JSON.parse(post.images) as Array<Record<string, unknown>>;
    for (const i of images) delete i.renditions;
    await s.app.db
      .updateTable("posts")
      .set({ images: JSON.stringify(images) })
      .where("id", "=", post.id)
      .execute();
    expect((await alice.client.get(`/api/social/posts/${postId}`)).body.data.post.images[0].renditions).toBeUndefined();

    const report = await rebuildDerived(s.app);
    expect(report.failed).toEqual([]);
    expect(report.rebuilt).toBeGreaterThanOrEqual(2);
    const shown = (await alice.client.get(`/api/social/posts/${postId}`)).body.data.post.images[0];
    expect(shown.renditions.map((r: any) => [r.width, r.height])).toEqual([
      [640, 427],
      [1280, 853],
    ]);
    for (const r of shown.renditions) expect(await served(r.url)).toMatchObject({ format: "webp", width: r.width });

    // a rendition lost later (a restore without derived files) is made again; nothing else is
    await store.delete(fileKeyFromUrl(s.app, shown.renditions[1].url)!);
    const again = await rebuildDerived(s.app);
    expect(again.failed).toEqual([]);
    expect(again.rebuilt).toBe(1);
    expect(await served(shown.renditions[1].url)).toMatchObject({ width: 1280, height: 853 });
  });
});

describe("alt text", () => {
  test("a post's images take descriptions by index, return them and edit them", async () => {
    const a = await upload(alice.client, "post", 300, 200);
    const b = await upload(alice.client, "post", 300, 200);
    const created = await alice.client.post("/api/social/posts", {
      content: "two",
      imageUrls: [a.url, b.url],
      imageAlts: ["  A blue square on a table  ", ""],
    });
    expect(created.status).toBe(200);
    const id = created.body.data.post.id as string;
    expect(created.body.data.post.images.map((i: any) => i.alt)).toEqual(["A blue square on a table", undefined]);

    const edited = await alice.client.patch(`/api/social/posts/${id}`, {
      imageAlts: [null, "The same square, closer"],
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.post.images.map((i: any) => i.alt)).toEqual([undefined, "The same square, closer"]);
    expect(edited.body.data.post.content).toBe("two");

    // new images without imageAlts: those the post keeps keep their description
    const reordered = await alice.client.patch(`/api/social/posts/${id}`, { imageUrls: [b.url] });
    expect(reordered.body.data.post.images.map((i: any) => i.alt)).toEqual(["The same square, closer"]);
    const feed = await bob.client.get(`/api/social/users/${alice.user.username}/posts`);
    if (feed.status === 200)
      expect(feed.body.data.posts.find((p: any) => p.id === id).images[0].alt).toBe("The same square, closer");
  });

  test("1,500 characters are taken, 1,501 refused with a clear error naming the image", async () => {
    const a = await upload(alice.client, "post", 50, 50);
    const ok = await alice.client.post("/api/social/posts", { imageUrls: [a.url], imageAlts: ["é".repeat(1500)] });
    expect(ok.status).toBe(200);
    const tooLong = await alice.client.post("/api/social/posts", { imageUrls: [a.url], imageAlts: ["x".repeat(1501)] });
    expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.body.error.details.fieldErrors["imageAlts.0"]).toEqual(["must be at most 1500 characters"]);
    const extra = await alice.client.post("/api/social/posts", { imageUrls: [a.url], imageAlts: ["a", "b"] });
    expectError(extra, 400, "VALIDATION_ERROR");
    expect(extra.body.error.details.fieldErrors.imageAlts).toBeDefined();
  });

  test("comments and messages take alt per attachment; a message's alt is edited", async () => {
    const post = await alice.client.post("/api/social/posts", { content: "commented" });
    const c = await upload(bob.client, "comment-image", 60, 40);
    const comment = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      media: [{ url: c.url, alt: "A reply picture" }],
    });
    expect(comment.status).toBe(200);
    expect(comment.body.data.comment.media[0].alt).toBe("A reply picture");
    const longComment = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      media: [{ url: c.url, alt: "x".repeat(1501) }],
    });
    expectError(longComment, 400, "VALIDATION_ERROR");
    expect(longComment.body.error.details.fieldErrors["media.0.alt"]).toEqual(["must be at most 1500 characters"]);

    const m = await upload(alice.client, "chat-image", 60, 40);
    const cid = (await alice.client.post(`/api/social/users/${bob.user.username}/message`, {})).body.data
      .conversationId as string;
    const sent = await alice.client.post(`/api/social/messages/${cid}`, {
      content: "look",
      media: [{ type: "image", url: m.url, alt: "A small blue card" }],
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data.message.media[0].alt).toBe("A small blue card");
    const mid = sent.body.data.message.id as string;
    const edited = await alice.client.patch(`/api/social/messages/${cid}/${mid}`, { mediaAlts: ["A blue card"] });
    expect(edited.status).toBe(200);
    expect(edited.body.data.message.media[0].alt).toBe("A blue card");
    expect(edited.body.data.message.content).toBe("look");
    const long = await alice.client.patch(`/api/social/messages/${cid}/${mid}`, { mediaAlts: ["x".repeat(1501)] });
    expectError(long, 400, "VALIDATION_ERROR");
    expect(long.body.error.details.fieldErrors["mediaAlts.0"]).toEqual(["must be at most 1500 characters"]);
  });

  test("the OpenAPI reference says how alt is given", async () => {
    const doc = await (await fetch(`${s.url}/api/openapi.json`)).json();
    const text = JSON.stringify(doc);
    expect(text).toContain("imageAlts");
    expect(text).toContain("alt text, up to 1,500 characters");
  });
});

describe("content warnings", () => {
  test("a post takes one (200 characters), shows it, edits and removes it; 201 are refused", async () => {
    const created = await alice.client.post("/api/social/posts", {
      content: "spoilers",
      contentWarning: " Film ending ",
    });
    expect(created.status).toBe(200);
    expect(created.body.data.post.contentWarning).toBe("Film ending");
    const id = created.body.data.post.id as string;
    expect((await bob.client.get(`/api/social/posts/${id}`)).body.data.post.contentWarning).toBe("Film ending");

    const edited = await alice.client.patch(`/api/social/posts/${id}`, { contentWarning: "w".repeat(200) });
    expect(edited.status).toBe(200);
    expect(edited.body.data.post.contentWarning).toBe("w".repeat(200));
    const cleared = await alice.client.patch(`/api/social/posts/${id}`, { contentWarning: null });
    expect(cleared.body.data.post.contentWarning).toBeNull();

    const tooLong = await alice.client.post("/api/social/posts", { content: "x", contentWarning: "w".repeat(201) });
    expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.body.error.details.fieldErrors.contentWarning).toEqual(["must be at most 200 characters"]);
    const plain = await alice.client.post("/api/social/posts", { content: "no warning" });
    expect(plain.body.data.post.contentWarning).toBeNull();
  });

  test("a comment takes one too", async () => {
    const post = await alice.client.post("/api/social/posts", { content: "a post" });
    const res = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      content: "it dies",
      contentWarning: "Spoiler",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.comment.contentWarning).toBe("Spoiler");
    const tooLong = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      content: "x",
      contentWarning: "w".repeat(201),
    });
    expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.body.error.details.fieldErrors.contentWarning).toEqual(["must be at most 200 characters"]);
    const longest = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      content: "y",
      contentWarning: ` ${"w".repeat(200)} `,
    });
    expect(longest.status).toBe(200);
    expect(longest.body.data.comment.contentWarning).toBe("w".repeat(200));
    const blank = await bob.client.post(`/api/social/posts/${post.body.data.post.id}/comments`, {
      content: "z",
      contentWarning: "   ",
    });
    expect(blank.body.data.comment.contentWarning).toBeNull();
    // readers of the post's comments get the warning with each comment
    const listed = await alice.client.get(`/api/social/posts/${post.body.data.post.id}/comments`);
    expect(Object.fromEntries(listed.body.data.comments.map((c: any) => [c.content, c.contentWarning]))).toMatchObject({
      "it dies": "Spoiler",
      y: "w".repeat(200),
      z: null,
    });
  });
});

describe("Bot API photo sizes", () => {
  test("a photo is a ladder of PhotoSizes from the renditions, each its own file, never above the original", async () => {
    const token = await createBotViaApi(alice.client, "ladder_bot", "Ladder");
    const cid = await openChat(bob.client, "ladder_bot");
    const m = await upload(bob.client, "chat-image", 2000, 1500);
    expect(
      (await bob.client.post(`/api/social/messages/${cid}`, { media: [{ type: "image", url: m.url }] })).status,
    ).toBe(200);
    const updates = await botCall(s.url, token, "getUpdates", { timeout: 0 });
    const photo = updates.body.result.map((u: any) => u.message).find((msg: any) => msg?.photo)?.photo as any[];
    expect(photo.map((p) => [p.width, p.height])).toEqual([
      [320, 240],
      [640, 480],
      [1280, 960],
      [2000, 1500],
    ]);
    expect(new Set(photo.map((p) => p.file_id)).size).toBe(4);
    expect(new Set(photo.map((p) => p.file_unique_id)).size).toBe(4);
    const sharp = await loadSharp(s.app);
    for (const size of photo.slice(1)) {
      const file = (await botCall(s.url, token, "getFile", { file_id: size.file_id })).body.result;
      expect(file.file_size).toBe(size.file_size);
      const res = await fetch(`${s.url}/file/bot${token}/${file.file_path}`);
      expect(res.status).toBe(200);
      const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([size.width, size.height]);
    }
  }, 30_000);
});
