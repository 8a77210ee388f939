import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { pngOf } from "../../testing/media";
import { postAs } from "../../testing/posts";
import { postUpload } from "../../testing/uploads";
import type { TestClient } from "../../testing/client";

// A profile's media gallery: the person's own posts with pictures, newest first, paged.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

async function pictureUrl(client: TestClient): Promise<string> {
  const res = await postUpload(client, "post", await pngOf(server.app, 700, 400), { type: "image/png" });
  expect(res.status).toBe(200);
  return res.body.data.url as string;
}

test("lists only the author's own posts with pictures, newest first, a page at a time", async () => {
  const alice = await quickPerson(server);
  const bob = await quickPerson(server);
  const first = await postAs(alice.client, { content: "first picture", imageUrls: [await pictureUrl(alice.client)] });
  await postAs(alice.client, "only words");
  const warned = await postAs(alice.client, {
    content: "second picture",
    contentWarning: "Spiders",
    imageUrls: [await pictureUrl(alice.client), await pictureUrl(alice.client)],
  });
  const bobs = await postAs(bob.client, { content: "bob's picture", imageUrls: [await pictureUrl(bob.client)] });
  // a repost of someone else's picture is theirs, not in her gallery
  expect((await alice.client.post(`/api/social/posts/${bobs.id}/repost`)).status).toBe(200);

  const path = `/api/social/users/${alice.user.username}/media`;
  const all = await bob.client.get(path);
  expect(all.status).toBe(200);
  expect(all.body.data.posts.map((p: { id: string }) => p.id)).toEqual([warned.id, first.id]);
  expect(all.body.data.posts[0].contentWarning).toBe("Spiders");
  expect(all.body.data.posts[0].images).toHaveLength(2);
  expect(all.body.data.posts[0].images[0].renditions.length).toBeGreaterThan(0);

  const one = await bob.client.get(`${path}?limit=1`);
  expect(one.body.data.posts.map((p: { id: string }) => p.id)).toEqual([warned.id]);
  const cursor = one.body.data.pageInfo.nextCursor;
  expect(cursor).toBeString();
  const two = await bob.client.get(`${path}?limit=1&cursor=${encodeURIComponent(cursor)}`);
  expect(two.body.data.posts.map((p: { id: string }) => p.id)).toEqual([first.id]);
  // the last page says so
  expect(two.body.data.pageInfo.nextCursor).toBeNull();

  // bob's gallery has his picture; someone without pictures has an empty one
  expect((await alice.client.get(`/api/social/users/${bob.user.username}/media`)).body.data.posts).toHaveLength(1);
  const quiet = await quickPerson(server);
  expect((await alice.client.get(`/api/social/users/${quiet.user.username}/media`)).body.data.posts).toEqual([]);
});

test("a person who blocked me, or no such person, has no gallery for me", async () => {
  const carol = await quickPerson(server);
  const dan = await quickPerson(server);
  await postAs(carol.client, { content: "a picture", imageUrls: [await pictureUrl(carol.client)] });
  expect((await carol.client.post(`/api/social/users/${dan.user.username}/block`)).status).toBe(200);
  const refused = await dan.client.get(`/api/social/users/${carol.user.username}/media`);
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(refused.body.success).toBe(false);
  const missing = await dan.client.get("/api/social/users/nobody_by_this_name/media");
  expect(missing.status).toBe(404);
  expect(missing.body.error.code).toBe("NOT_FOUND");
});
