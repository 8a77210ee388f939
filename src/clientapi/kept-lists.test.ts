import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { quickPerson } from "../testing/fixtures";
import { fewestStatements } from "../testing/statements";
import { testsOnPostgres } from "../testing/postgres";
import { postIdAs } from "../testing/posts";

/*
 * The list pages kept as answers (src/cache/registry.ts: follow-pages, feed-pages,
 * notification-pages) are served from what was kept when asked again, and follow a change at
 * once. src/cache/oracle.test.ts checks each answer against a fresh read after every kind of
 * write; this checks that a page asked again is not read again.
 */

let server: TestServer;
let me: Awaited<ReturnType<typeof quickPerson>>;
let fan: Awaited<ReturnType<typeof quickPerson>>;
let postId: string;

beforeAll(async () => {
  server = await startTestServer();
  me = await quickPerson(server);
  fan = await quickPerson(server);
  expect((await fan.client.post(`/api/social/users/${me.user.username}/follow`, {})).status).toBe(200);
  postId = await postIdAs(me.client, "kept lists #keptlists");
  for (const mark of ["like", "bookmark"])
    expect((await fan.client.post(`/api/social/posts/${postId}/${mark}`, {})).status).toBe(200);
  expect((await me.client.post(`/api/social/posts/${postId}/bookmark`, {})).status).toBe(200);
});
afterAll(() => server.stop());

/**
 * The statements of a page asked again: none on SQLite, where a stamp is read at most once a turn
 * of the event loop while nothing is written; on PostgreSQL the session's stamp and the cache's,
 * read on each request (other nodes write unseen). A notification page reads its recipient's
 * counts, and no cache stamp.
 */
const session = () => (testsOnPostgres() ? 1 : 0);
const stamped = () => (testsOnPostgres() ? 2 : 0);

const pages: Array<[string, () => string, number | (() => number)]> = [
  ["followers", () => `/api/social/users/${me.user.username}/followers`, stamped],
  ["following", () => `/api/social/users/${fan.user.username}/following`, stamped],
  ["bookmarks", () => "/api/social/bookmarks", stamped],
  ["a hashtag's posts", () => "/api/social/hashtags/keptlists/posts", stamped],
  ["a post's likers", () => `/api/social/posts/${postId}/likes`, stamped],
  ["notifications", () => "/api/social/notifications", () => 1 + session()],
];

test.each(pages)("%s: a page asked again is the one kept", async (_name, path, cost) => {
  const ask = async () => {
    const res = await me.client.get(path());
    expect(res.status).toBe(200);
    return res.body.data;
  };
  await ask();
  expect(await fewestStatements(server.app.storage, ask)).toBe(typeof cost === "function" ? cost() : cost);
});

test("a kept page follows a change at once: a new follower, like and notification show on the next page", async () => {
  const first = async (path: string) => (await me.client.get(path)).body.data;
  const followers = `/api/social/users/${me.user.username}/followers`;
  const likers = `/api/social/posts/${postId}/likes`;
  expect((await first(followers)).users.map((u: { id: string }) => u.id)).toEqual([fan.user.cuid]);
  expect((await first(likers)).users).toHaveLength(1);
  const followed = (page: { notifications: Array<{ type: string; count: number }> }) =>
    page.notifications.find((n) => n.type === "follow")?.count;
  expect(followed(await first("/api/social/notifications"))).toBe(1);
  const newcomer = await quickPerson(server);
  expect((await newcomer.client.post(`/api/social/users/${me.user.username}/follow`, {})).status).toBe(200);
  expect((await newcomer.client.post(`/api/social/posts/${postId}/like`, {})).status).toBe(200);
  expect((await first(followers)).users.map((u: { id: string }) => u.id)).toEqual([newcomer.user.cuid, fan.user.cuid]);
  expect((await first(likers)).users.map((u: { id: string }) => u.id)).toContain(newcomer.user.cuid);
  // both join the unread groups of their kind: "2 people followed you", "2 people liked your post"
  const after = await first("/api/social/notifications");
  expect(after.notifications[0].actor.id).toBe(newcomer.user.cuid);
  expect(followed(after)).toBe(2);
});
