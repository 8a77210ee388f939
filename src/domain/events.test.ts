import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { quickPerson } from "../testing/fixtures";
import { grantStars } from "./stars/service";
import type { DomainEvent } from "./events";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

test("domain events are plain data naming ids, never whole rows: JSON carries them unchanged", async () => {
  const seen: DomainEvent[] = [];
  server.app.hooks.onEvent((e) => seen.push(e));
  const [a, b] = [await quickPerson(server), await quickPerson(server)];
  await b.client.post(`/api/social/users/${a.user.username}/follow`);
  const cid = (await a.client.post("/api/social/groups", { title: "Plain", members: [b.user.username] })).body.data
    .conversationId;
  const m = (await a.client.post(`/api/social/messages/${cid}`, { content: "hi" })).body.data.message;
  await a.client.patch(`/api/social/groups/${cid}`, { title: "Plain 2" });
  await b.client.post(`/api/social/messages/${cid}/typing`);
  await a.client.post(`/api/social/messages/${cid}/${m.id}/reactions`, { emoji: "🔥" });
  await b.client.post(`/api/social/messages/${cid}/read`, { messageId: m.id });
  await a.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`);
  const post = (await a.client.post("/api/social/posts", { content: "plain" })).body.data.post;
  await a.client.delete(`/api/social/posts/${post.id}`);
  await grantStars(server.app, a.user.id, 5, "plain");
  await b.client.post("/api/auth/logout");

  const mine = seen.filter((e) => e.to.includes(a.user.id) || e.to.includes(b.user.id));
  expect(new Set(mine.map((e) => e.type))).toEqual(
    new Set([
      "chat:changed",
      "chat:typing",
      "message:reactions",
      "chat:read",
      "message:deleted",
      "posts:published",
      "post:deleted",
      "stars:balance",
      "session:revoked",
    ]),
  );
  for (const e of mine) {
    expect(JSON.parse(JSON.stringify(e))).toEqual(e);
    // rows are cut down to what the event names (a whole user row holds a password hash)
    const keys = JSON.stringify(e).match(/"[a-z_]+":/g) ?? [];
    for (const secret of ['"password_hash":', '"content":', '"private_key":', '"email":'])
      expect(keys).not.toContain(secret);
  }
  expect(mine.find((e) => e.type === "chat:typing")).toEqual({
    type: "chat:typing",
    to: [a.user.id],
    conversation: { id: expect.any(Number), cuid: cid },
    user: { id: b.user.id, cuid: b.user.cuid, username: b.user.username },
  });
});
