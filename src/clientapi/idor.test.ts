import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { quickPerson } from "../testing/fixtures";
import type { TestClient } from "../testing/client";
import { uploadFor } from "../testing/media";
import { sweep } from "../testing/sweep";

/**
 * An IDOR sweep: every Client API route with an id in its path (from the server's own route
 * table) is called by Bob with Alice's ids: her private chat and its message, her group, her
 * post, comment and story, her session, her bot. Routes that are public or are interactions
 * anyone may have with her content are listed below; every other route answers Bob 403 or
 * 404 (401 where it takes another credential), never 2xx, and no answer carries her private content. Afterwards her things are intact.
 */

let server: TestServer;
let alice: { user: { id: number; username: string }; client: TestClient };
let bob: { user: { id: number; username: string }; client: TestClient };
let carol: { user: { id: number; username: string }; client: TestClient };
const SECRET = "alice-private-words-7f3a";
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  alice = await quickPerson(server);
  bob = await quickPerson(server);
  carol = await quickPerson(server);
  const ok = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    expect(r.status).toBe(200);
    return r.body.data;
  };
  ids.chat = (await ok(alice.client.post(`/api/social/users/${carol.user.username}/message`, {}))).conversationId;
  ids.message = (
    await ok(alice.client.post(`/api/social/messages/${ids.chat}`, { content: `${SECRET} in a chat` }))
  ).message.id;
  ids.group = (
    await ok(alice.client.post("/api/social/groups", { title: `${SECRET} group`, members: [carol.user.username] }))
  ).conversationId;
  ids.groupMessage = (
    await ok(alice.client.post(`/api/social/messages/${ids.group}`, { content: `${SECRET} in a group` }))
  ).message.id;
  ids.post = (await ok(alice.client.post("/api/social/posts", { content: "a public post" }))).post?.id ?? "";
  if (!ids.post) ids.post = (await ok(alice.client.get(`/api/social/users/${alice.user.username}/posts`))).posts[0].id;
  ids.comment =
    (await ok(alice.client.post(`/api/social/posts/${ids.post}/comments`, { content: "a public comment" }))).comment
      ?.id ?? "";
  ids.story =
    (
      await ok(
        alice.client.post("/api/social/stories", { mediaUrl: await uploadFor(server.app, alice.user.id, "story") }),
      )
    ).story?.id ?? "";
  ids.session = (await ok(alice.client.get("/api/auth/sessions"))).sessions[0].id;
  ids.bot = "alices_bot";
  await ok(alice.client.post("/api/bots", { username: ids.bot, name: "Alice's bot" }));
  ids.bobChat = (await ok(bob.client.post(`/api/social/users/${carol.user.username}/message`, {}))).conversationId;
});
afterAll(() => server.stop());

/** Routes where Alice's ids are Bob's to use: public reads and the interactions anyone may have with her. */
const OPEN_TO_OTHERS = new Set([
  "GET /api/social/users/:username",
  "GET /api/social/users/:username/followers",
  "GET /api/social/users/:username/following",
  "GET /api/social/users/:username/posts",
  "GET /api/social/users/:username/media",
  "GET /api/social/users/:username/stories",
  "POST /api/social/users/:username/follow",
  "POST /api/social/users/:username/block",
  "POST /api/social/users/:username/mute",
  "POST /api/social/users/:username/message",
  "GET /api/social/posts/:id",
  "GET /api/social/posts/:id/likes",
  "GET /api/social/posts/:id/comments",
  "POST /api/social/posts/:id/like",
  "POST /api/social/posts/:id/repost",
  "POST /api/social/posts/:id/bookmark",
  "POST /api/social/posts/:id/poll/vote",
  "POST /api/social/posts/:id/comments",
  "GET /api/social/comments/:id",
  "GET /api/social/comments/:id/likes",
  "GET /api/social/comments/:id/replies",
  "POST /api/social/comments/:id/like",
  "GET /api/social/stories/:id",
  "POST /api/social/stories/:id/view",
  "GET /api/social/bots/:username",
  "GET /api/social/hashtags/:tag/posts",
]);

/** File names are capabilities (unguessable, served to whoever holds the URL), not ids to guess. */
const NOT_IDS = new Set(["GET /files/:name", "HEAD /files/:name"]);

/** Alice's id for each path parameter, by the route's prefix. */
function withAlicesIds(path: string): string {
  let p = path;
  if (p.startsWith("/api/social/messages/")) p = p.replace(":cid", ids.chat!).replace(":mid", ids.message!);
  if (p.startsWith("/api/social/groups/")) p = p.replace(":cid", ids.group!).replace(":username", carol.user.username);
  if (p.startsWith("/api/social/posts/")) p = p.replace(":id", ids.post!);
  if (p.startsWith("/api/social/comments/")) p = p.replace(":id", ids.comment!);
  if (p.startsWith("/api/social/stories/")) p = p.replace(":id", ids.story!);
  if (p.startsWith("/api/auth/sessions/")) p = p.replace(":id", ids.session!);
  if (p.startsWith("/api/bots/") || p.startsWith("/api/social/bots/")) p = p.replace(":username", ids.bot!);
  // the rest name people and public things (and /api/admin, which Bob may not use at all)
  return p
    .replace(/:username/g, alice.user.username)
    .replace(/:tag/g, "news")
    .replace(/:\w+/g, ids.post!);
}

/** A valid value for each body field the routes with ids take, so the answer is about access, not shape. */
const validBody = (fields: string[]): Record<string, unknown> => {
  const values: Record<string, unknown> = {
    content: "probe",
    emoji: "👍",
    data: "d",
    url: "https://example.com/app",
    messageId: ids.message,
    toConversationId: ids.bobChat,
    clientMessageId: `idor-${crypto.randomUUID()}`,
    title: "taken over",
    photoUrl: null,
    username: bob.user.username,
    role: "administrator",
    rights: { can_change_info: true },
    enabled: false,
    description: "taken over",
    shortDescription: "taken over",
    amount: 1,
    optionIds: [],
    options: [0],
    code: "x",
  };
  return Object.fromEntries(fields.filter((f) => f in values).map((f) => [f, values[f]]));
};

describe("IDOR: one account's ids used by another", () => {
  test("every route with an id refuses Bob Alice's private things (403/404), and never shows them", async () => {
    const routes = (await server.routes()).filter(
      (r) => r.path.includes(":") && !NOT_IDS.has(`${r.method} ${r.path}`) && r.method !== "WS",
    );
    expect(routes.length).toBeGreaterThan(40);
    const csrf = bob.client.cookies.get("csrf_token") ?? "";
    const { problems } = await sweep(
      routes,
      (r) => {
        const fields = Object.keys(
          (r.hooks as { body?: { properties?: Record<string, unknown> } })?.body?.properties ?? {},
        );
        const body = r.method === "GET" || r.method === "HEAD" ? undefined : JSON.stringify(validBody(fields));
        return fetch(server.url + withAlicesIds(r.path), {
          method: r.method,
          headers: { cookie: bob.client.cookieHeader(), "x-csrf-token": csrf, "content-type": "application/json" },
          body,
        });
      },
      (r, { status, text }) => {
        const route = `${r.method} ${r.path}`;
        if (text.includes(SECRET)) return { route, status, leaked: text.slice(0, 200) };
        if (OPEN_TO_OTHERS.has(route)) return status >= 500 ? { route, status } : null;
        // 401: a route that takes another credential altogether (the operator's loopback endpoints)
        return status === 401 || status === 403 || status === 404
          ? null
          : { route, status, answer: text.slice(0, 200) };
      },
      1,
    );
    expect(problems).toEqual([]);
  }, 120_000);

  test("Bob cannot put his message into Alice's chat by naming it in a body either", async () => {
    const own = await bob.client.post(`/api/social/messages/${ids.bobChat}`, { content: "bob's" });
    const res = await bob.client.post(`/api/social/messages/${ids.bobChat}/${own.body.data.message.id}/forward`, {
      toConversationId: ids.chat,
      clientMessageId: "idor-forward",
    });
    expect([403, 404]).toContain(res.status);
  });

  test("after the sweep Alice's things are as she left them", async () => {
    const history = await alice.client.get(`/api/social/messages/${ids.chat}`);
    expect(history.body.data.messages.map((m: any) => m.content)).toEqual([`${SECRET} in a chat`]);
    const members = await alice.client.get(`/api/social/groups/${ids.group}/members`);
    expect(members.body.data.members.map((m: any) => m.user?.username ?? m.username).sort()).toEqual(
      [alice.user.username, carol.user.username].sort(),
    );
    expect((await alice.client.get(`/api/social/posts/${ids.post}`)).status).toBe(200);
    expect((await alice.client.get("/api/auth/me")).status).toBe(200);
    expect((await alice.client.get("/api/bots")).body.data.bots.map((b: any) => b.username)).toEqual([ids.bot]);
  });
});
