import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { groupWithBurst } from "../../testing/chats";
import {
  startTestPushService,
  verifyVapid,
  type BrowserSubscription,
  type TestPushService,
} from "../../testing/push-service";
import { botCall, createBotViaApi, openChat as openBotChat } from "../../testing/botapi";
import { botApiUserId } from "../../domain/bots/ids";
import { waitFor } from "../../testing/wait";
import { runCleanup } from "../../ops";

let server: TestServer;
let service: TestPushService;
beforeAll(async () => {
  server = await startTestServer({ "push.allowPrivateEndpoints": true });
  service = startTestPushService();
});
afterAll(async () => {
  await server.stop();
  service.stop();
});

type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = (displayName?: string) => quickPerson(server, { displayName });

/** Subscribes P's session with a new browser subscription at the loopback push service. */
async function subscribe(p: Person): Promise<BrowserSubscription & { id: string }> {
  const browser = service.subscribe();
  const res = await p.client.post("/api/push/subscriptions", { endpoint: browser.endpoint, keys: browser.keys });
  expect(res.status).toBe(200);
  return { ...browser, id: res.body.data.subscription.id };
}

async function openChat(a: Person, b: Person): Promise<string> {
  const res = await a.client.post(`/api/social/users/${b.user.username}/message`);
  expect(res.status).toBe(200);
  return res.body.data.conversationId;
}

const send = async (p: Person, cid: string, content: string) => {
  const res = await p.client.post(`/api/social/messages/${cid}`, { content });
  expect(res.status).toBe(200);
  return res.body.data.message;
};

/** The pushes BROWSER got, decrypted. */
const payloads = (browser: BrowserSubscription) =>
  service.to(browser.endpoint).map((r) => JSON.parse(browser.decrypt(r.body)));

/** Every queued push job has been carried out (delivered, or given up). */
const settled = () =>
  waitFor(
    async () =>
      (await server.app.db
        .selectFrom("jobs")
        .select("id")
        .where("kind", "like", "push:%")
        .where("state", "in", ["queued", "running"])
        .executeTakeFirst()) === undefined,
    15_000,
    "the push jobs to finish",
  );

describe("the key and subscriptions", () => {
  test("the VAPID public key is a P-256 point, the same at every read", async () => {
    const a = await person();
    const res = await a.client.get("/api/push/key");
    expect(res.status).toBe(200);
    const key = res.body.data.publicKey as string;
    expect(key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(Buffer.from(key, "base64url")[0]).toBe(4);
    expect((await a.client.get("/api/push/key")).body.data.publicKey).toBe(key);
  });

  test("bad subscriptions are refused naming the field; good ones are listed and removable", async () => {
    const a = await person();
    const browser = service.subscribe();
    // what the schema refuses is a 422, what the checks after it refuse a 400: both name the field
    const refused = async (body: unknown, status = 400) => {
      const res = await a.client.post("/api/push/subscriptions", body);
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      return res.body.error;
    };
    expect((await refused({ endpoint: "not a url", keys: browser.keys })).details.fieldErrors.endpoint).toBeDefined();
    const badPoint = Buffer.alloc(65, 7);
    badPoint[0] = 4;
    expect(
      (await refused({ endpoint: browser.endpoint, keys: { ...browser.keys, p256dh: badPoint.toString("base64url") } }))
        .details.fieldErrors["keys.p256dh"],
    ).toBeDefined();
    expect(
      (await refused({ endpoint: browser.endpoint, keys: { ...browser.keys, auth: "AAAA" } })).details.fieldErrors[
        "keys.auth"
      ],
    ).toBeDefined();
    expect((await refused({ endpoint: browser.endpoint }, 422)).details.fieldErrors.keys).toBeDefined();

    a.client.userAgent = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0";
    const made = await a.client.post("/api/push/subscriptions", { endpoint: browser.endpoint, keys: browser.keys });
    expect(made.status).toBe(200);
    const id = made.body.data.subscription.id;
    const list = await a.client.get("/api/push/subscriptions");
    expect(list.body.data.subscriptions).toEqual([
      {
        id,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
        createdAt: expect.any(String),
        lastUsedAt: null,
        current: true,
      },
    ]);
    // someone else's subscription is not theirs to remove
    const b = await person();
    expect((await b.client.delete(`/api/push/subscriptions/${id}`)).status).toBe(404);
    expect((await a.client.delete(`/api/push/subscriptions/${id}`)).status).toBe(200);
    expect((await a.client.get("/api/push/subscriptions")).body.data.subscriptions).toEqual([]);
    // signed out, nothing of it is reachable
    const anonymous = new (a.client.constructor as any)(server.url);
    expect((await anonymous.get("/api/push/subscriptions")).status).toBe(401);
  });

  test("a private endpoint is refused unless push.allowPrivateEndpoints", async () => {
    const strict = await startTestServer();
    try {
      const p = await quickPerson(strict);
      const browser = service.subscribe();
      const res = await p.client.post("/api/push/subscriptions", { endpoint: browser.endpoint, keys: browser.keys });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fieldErrors.endpoint).toEqual(["an HTTPS URL must be provided"]);
      const https = await p.client.post("/api/push/subscriptions", {
        endpoint: "https://127.0.0.1:9/push/x",
        keys: browser.keys,
      });
      expect(https.body.error.details.fieldErrors.endpoint).toEqual(["IP address is not public"]);
    } finally {
      await strict.stop();
    }
  });
});

describe("pushes", () => {
  test("a new message reaches the recipient's browser: VAPID-signed, aes128gcm-encrypted, opening the chat", async () => {
    const a = await person("Alice");
    const b = await person("Bob");
    const browser = await subscribe(b);
    const cid = await openChat(a, b);
    await send(a, cid, "Tea at five?");
    const [push] = await service.waitFor(browser.endpoint);
    const claims = verifyVapid(push!.headers, browser.endpoint, server.app.vapid.publicKey);
    expect(claims.aud).toBe(service.url);
    expect(push!.headers.get("content-encoding")).toBe("aes128gcm");
    expect(Number(push!.headers.get("ttl"))).toBeGreaterThan(0);
    expect(JSON.parse(browser.decrypt(push!.body))).toEqual({
      kind: "messages",
      title: "Alice",
      body: "Tea at five?",
      url: `/dashboard/messages/${cid}`,
    });
    // the sender's own devices are not told of what they sent
    const own = await subscribe(a);
    await send(a, cid, "again");
    await service.waitFor(browser.endpoint, 2);
    await settled();
    expect(service.to(own.endpoint)).toEqual([]);
    // the device list shows when it last got one
    await waitFor(async () => (await b.client.get("/api/push/subscriptions")).body.data.subscriptions[0].lastUsedAt);
  });

  test("a group message names the group and the sender", async () => {
    const [a, b, c] = [await person("Ann"), await person("Ben"), await person("Cat")];
    const browser = await subscribe(c);
    const made = await a.client.post("/api/social/groups", {
      title: "Climbers",
      members: [b.user.username, c.user.username],
    });
    expect(made.status).toBe(200);
    const cid = made.body.data.conversationId;
    await send(b, cid, "Rope is packed");
    await waitFor(() => payloads(browser).find((p) => p.body === "Ben: Rope is packed"));
    expect(payloads(browser).find((p) => p.body === "Ben: Rope is packed")).toEqual({
      kind: "messages",
      title: "Climbers",
      body: "Ben: Rope is packed",
      url: `/dashboard/messages/${cid}`,
    });
  });

  test("messages sent while a push for the chat waits make one push, counted for each reader from their own last message", async () => {
    const [a, b, c] = [await person("Ada"), await person("Bo"), await person("Cy")];
    const [forB, forC] = [await subscribe(b), await subscribe(c)];
    // stored in one commit: the first message's push plan is still queued when the others ask for theirs
    const cid = await groupWithBurst(
      server,
      a,
      "Rowers",
      [b, c],
      [
        [a, { content: "Boat at six" }],
        [b, { content: "I'll bring oars" }],
        [a, { content: "Great, see you" }],
      ],
    );
    await service.waitFor(forB.endpoint);
    await service.waitFor(forC.endpoint);
    await settled();
    expect(payloads(forC)).toEqual([
      {
        kind: "messages",
        title: "Rowers (3 new messages)",
        body: "Ada: Great, see you",
        url: `/dashboard/messages/${cid}`,
      },
    ]);
    // Bo answered the first: only what came after counts
    expect(payloads(forB).map((p) => [p.title, p.body])).toEqual([["Rowers", "Ada: Great, see you"]]);
  });

  test("a bot's message is pushed too", async () => {
    const owner = await person();
    const p = await person();
    const browser = await subscribe(p);
    const token = await createBotViaApi(owner.client, `weather_${Date.now() % 100000}_bot`, "Weather Bot");
    const bot = (await botCall(server.url, token, "getMe")).body.result;
    const cid = await openBotChat(p.client, bot.username);
    const sent = await botCall(server.url, token, "sendMessage", { chat_id: botApiUserId(p.user.id), text: "Sunny" });
    expect(sent.status).toBe(200);
    await waitFor(() => payloads(browser).find((x) => x.body === "Sunny"));
    expect(payloads(browser).find((x) => x.body === "Sunny")).toEqual({
      kind: "messages",
      title: "Weather Bot",
      body: "Sunny",
      url: `/dashboard/messages/${cid}`,
    });
  });

  test("follows, likes and reactions, each opening its screen", async () => {
    const a = await person("Ada");
    const b = await person("Bea");
    const browser = await subscribe(b);
    expect((await a.client.post(`/api/social/users/${b.user.username}/follow`)).status).toBe(200);
    await waitFor(() => payloads(browser).find((p) => p.kind === "follows"));
    expect(payloads(browser).find((p) => p.kind === "follows")).toEqual({
      kind: "follows",
      title: "Ada",
      body: "followed you",
      url: `/users/${a.user.username}`,
    });
    const post = await b.client.post("/api/social/posts", { content: "Sunrise" });
    expect(post.status).toBe(200);
    const postId = post.body.data.post.id;
    expect((await a.client.post(`/api/social/posts/${postId}/like`)).status).toBe(200);
    await waitFor(() => payloads(browser).find((p) => p.body === "liked your post"));
    expect(payloads(browser).find((p) => p.body === "liked your post")).toEqual({
      kind: "reactions",
      title: "Ada",
      body: "liked your post",
      url: `/posts/${postId}`,
    });
    const cid = await openChat(a, b);
    const mine = await send(b, cid, "Look at this");
    const reacted = await a.client.post(`/api/social/messages/${cid}/${mine.id}/reactions`, { emoji: "🔥" });
    expect(reacted.status).toBe(200);
    await waitFor(() => payloads(browser).find((p) => p.body.startsWith("reacted")));
    expect(payloads(browser).find((p) => p.body.startsWith("reacted"))).toEqual({
      kind: "reactions",
      title: "Ada",
      body: "reacted 🔥 to your message: Look at this",
      url: `/dashboard/messages/${cid}`,
    });
  });

  test("settings: every kind on at first; a kind switched off sends nothing of it", async () => {
    const a = await person("Amy");
    const b = await person("Bo");
    const all = { messages: true, mentions: true, replies: true, follows: true, reactions: true, payments: true };
    expect((await b.client.get("/api/account/notification-settings")).body.data).toEqual({
      push: all,
      email: { digest: false },
    });
    const patched = await b.client.patch("/api/account/notification-settings", { push: { messages: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ push: { ...all, messages: false }, email: { digest: false } });
    expect((await b.client.get("/api/account/notification-settings")).body.data.push.messages).toBe(false);
    expect(
      (await b.client.patch("/api/account/notification-settings", { push: { messages: "no" } })).body.error.code,
    ).toBe("VALIDATION_ERROR");
    const browser = await subscribe(b);
    const cid = await openChat(a, b);
    await send(a, cid, "you will not hear of this");
    // a follow made after the message is pushed: by then the message's push was worked out
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await waitFor(() => payloads(browser).find((p) => p.kind === "follows"));
    await settled();
    expect(payloads(browser).map((p) => p.kind)).toEqual(["follows"]);
  });

  test("no push about a chat its reader has on screen; pushes again once they look away", async () => {
    const a = await person();
    const b = await person();
    const browser = await subscribe(b);
    const cid = await openChat(a, b);
    const other = await openChat(b, await person());
    const viewing = await b.client.put("/api/push/viewing", { chatId: cid });
    expect(viewing.body.data).toEqual({ chatId: cid, seconds: 60 });
    await send(a, cid, "while you read");
    await settled();
    expect(service.to(browser.endpoint)).toEqual([]);
    // a chat they are not in cannot be claimed
    expect((await a.client.put("/api/push/viewing", { chatId: other })).status).toBe(404);
    // the word lapses unless repeated
    server.clock.advance(61_000);
    await send(a, cid, "after a minute away");
    await waitFor(() => payloads(browser).find((p) => p.body === "after a minute away"));
    await b.client.put("/api/push/viewing", { chatId: cid });
    await b.client.put("/api/push/viewing", { chatId: null });
    await send(a, cid, "closed the chat");
    await waitFor(() => payloads(browser).find((p) => p.body === "closed the chat"));
    expect(payloads(browser).map((p) => p.body)).toEqual(["after a minute away", "closed the chat"]);
  });

  test("a subscription the push service calls gone (410) is removed", async () => {
    const a = await person();
    const b = await person();
    const browser = await subscribe(b);
    service.answer(browser.endpoint, { status: 410 });
    const cid = await openChat(a, b);
    await send(a, cid, "anyone there?");
    await service.waitFor(browser.endpoint);
    await settled();
    expect((await b.client.get("/api/push/subscriptions")).body.data.subscriptions).toEqual([]);
    await send(a, cid, "still?");
    await settled();
    expect(service.to(browser.endpoint).length).toBe(1);
  });

  test("signing out removes the session's subscriptions", async () => {
    const a = await person();
    const b = await person();
    const browser = await subscribe(b);
    expect((await b.client.post("/api/auth/logout")).status).toBe(200);
    // removed as the sign-out is announced, just after it is answered
    await waitFor(
      async () =>
        (await server.app.db
          .selectFrom("push_subscriptions")
          .select("id")
          .where("user_id", "=", b.user.id)
          .executeTakeFirst()) === undefined,
      5_000,
      "the signed-out session's subscription to go",
    );
    const cid = await openChat(a, b);
    await send(a, cid, "gone?");
    await settled();
    expect(service.to(browser.endpoint)).toEqual([]);
  });

  test("housekeeping removes the subscriptions of sessions ended elsewhere (the CLI, expiry)", async () => {
    const a = await person();
    const b = await person();
    const browser = await subscribe(b);
    // revoked by another process: no event reaches this server, the row is only filtered out
    await server.app.db
      .updateTable("sessions")
      .set({ revoked_at: server.clock.now() })
      .where("user_id", "=", b.user.id)
      .execute();
    const cid = await openChat(a, b);
    await send(a, cid, "to a signed-out browser");
    await settled();
    expect(service.to(browser.endpoint)).toEqual([]);
    const run = await runCleanup(server.app, "push:ended");
    expect(run.ok).toBe(true);
    expect(run.result).toBeGreaterThanOrEqual(1);
    const left = await server.app.db
      .selectFrom("push_subscriptions")
      .select("id")
      .where("user_id", "=", b.user.id)
      .execute();
    expect(left).toEqual([]);
  });

  test("a push service that answers slowly does not slow a send", async () => {
    const a = await person();
    const b = await person();
    const browser = await subscribe(b);
    service.answer(browser.endpoint, { delayMs: 5_000 });
    const cid = await openChat(a, b);
    const started = performance.now();
    await send(a, cid, "quick");
    const took = performance.now() - started;
    expect(took).toBeLessThan(2_000);
    const [push] = await service.waitFor(browser.endpoint, 1, 15_000);
    expect(JSON.parse(browser.decrypt(push!.body)).body).toBe("quick");
  }, 30_000);
});
