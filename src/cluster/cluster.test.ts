import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { botCall, createBotViaApi, openChat, pressButtonAndPay, waitForLongPoll } from "../testing/botapi";
import { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { SseClient, WsClient } from "../testing/realtime";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { grantStars } from "../domain/stars/service";
import { botApiUserId } from "../domain/bots/ids";
import { pubsub } from "./pubsub";

/*
 * Two nodes of one instance in this process: the same data dir (database, config, secret)
 * and one real redis-server. What one node does must be seen by the other at once: no
 * polling anywhere, so every wait below ends as soon as the message arrives.
 */

let redis: TestRedis;
let dataDir: string;
let a: TestServer;
let b: TestServer;

/** CLIENT's session, used against another node (same cookies: same instance, same secret). */
function onNode(client: TestClient, node: TestServer): TestClient {
  const other = new TestClient(node.url);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  other.csrf = client.csrf;
  return other;
}

beforeAll(async () => {
  redis = await startTestRedis();
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-cluster-"));
  const settings = { "pubsub.url": redis.url, "limits.messagesPerMinute": 4, "bot.allowPrivateWebhooks": true };
  a = await startTestServer(settings, { dataDir });
  b = await startTestServer(settings, { dataDir });
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("two nodes on one Redis", () => {
  test("both nodes use Redis and report it healthy", async () => {
    for (const node of [a, b]) {
      expect(pubsub(node.app).engine).toBe("redis");
      expect(await pubsub(node.app).problem()).toBeNull();
    }
    expect(pubsub(a.app).nodeId).not.toBe(pubsub(b.app).nodeId);
  });

  test("a message sent through A reaches WebSocket and SSE streams on B", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const ws = await WsClient.open(b.url, onNode(bob.client, b));
    const sse = await SseClient.open(b.url, onNode(bob.client, b));
    try {
      const sent = await alice.client.post(`/api/social/messages/${cid}`, { content: "hello from A" });
      expect(sent.status).toBe(200);
      const isIt = (f: { event: string; data: any }) =>
        f.event === "message:new" && f.data.message.content === "hello from A";
      await ws.waitFor((frames) => frames.some(isIt), 5000, "message:new on B's WebSocket");
      await sse.waitFor((frames) => frames.some(isIt), 5000, "message:new on B's SSE stream");
      const wsFrame = ws.frames.find(isIt)!;
      const sseFrame = sse.frames.find(isIt)!;
      // one event, one id, wherever it is read
      expect(wsFrame.id).toBe(sseFrame.id);
    } finally {
      ws.close();
      sse.close();
    }
  });

  test("a stream resumed on the other node replays what it missed, in order", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const first = await SseClient.open(a.url, bob.client);
    await alice.client.post(`/api/social/messages/${cid}`, { content: "seen on A" });
    await first.waitFor((f) => f.some((x) => x.event === "message:new"), 5000);
    const lastSeen = first.frames.find((x) => x.event === "message:new")!.id!;
    first.close();
    for (const content of ["missed 1", "missed 2"])
      expect((await alice.client.post(`/api/social/messages/${cid}`, { content })).status).toBe(200);
    const resumed = await SseClient.open(b.url, onNode(bob.client, b), { lastEventId: lastSeen });
    try {
      await resumed.waitFor((f) => f.filter((x) => x.event === "message:new").length >= 2, 5000);
      const replayed = resumed.frames.filter((x) => x.event === "message:new");
      expect(replayed.map((x) => x.data.message.content)).toEqual(["missed 1", "missed 2"]);
      expect(replayed[0]!.id!).toBeGreaterThan(lastSeen);
      expect(resumed.frames.some((x) => x.event === "stream:reset")).toBe(false);
      // an id no node ever gave out is refused with a reset, on any node
      const bogus = await SseClient.open(a.url, bob.client, { lastEventId: replayed[1]!.id! + 10 ** 9 });
      await bogus.waitFor((f) => f.some((x) => x.event === "stream:reset"), 5000);
      bogus.close();
    } finally {
      resumed.close();
    }
  });

  test("a parked getUpdates on B answers at once with a message sent through A; a second poll on A ends it with 409", async () => {
    const owner = (await signedInClient(a)).client;
    const person = await quickPerson(a);
    const token = await createBotViaApi(owner, "cluster_wake_bot", "Wake");
    const cid = await openChat(person.client, "cluster_wake_bot");
    expect((await botCall(b.url, token, "getUpdates", { timeout: 0 })).body.result).toEqual([]);

    const parked = botCall(b.url, token, "getUpdates", { timeout: 25 });
    await waitForLongPoll(b.app, token);
    const t0 = performance.now();
    await person.client.post(`/api/social/messages/${cid}`, { content: "wake up" });
    const woken = await parked;
    // no polling loop: the wait ends with the message, far inside its 25 s
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(woken.status).toBe(200);
    expect(woken.body.result.map((u: any) => u.message.text)).toEqual(["wake up"]);

    const next = woken.body.result.at(-1).update_id + 1;
    const waiting = botCall(b.url, token, "getUpdates", { offset: next, timeout: 25 });
    await waitForLongPoll(b.app, token);
    const newer = botCall(a.url, token, "getUpdates", { offset: next, timeout: 1 });
    const superseded = await waiting;
    expect(superseded.status).toBe(409);
    expect(superseded.body.ok).toBe(false);
    expect((await newer).status).toBe(200);
  });

  test("a reissued token stops working on B, and a disabled account is refused on B, right after A did it", async () => {
    const owner = (await signedInClient(a)).client;
    const oldToken = await createBotViaApi(owner, "cluster_token_bot", "Tok");
    expect((await botCall(b.url, oldToken, "getMe")).status).toBe(200); // now cached on B
    const reissued = await owner.post("/api/bots/cluster_token_bot/token");
    expect(reissued.status).toBe(200);
    const newToken = reissued.body.data.token as string;
    await waitFor(async () => (await botCall(b.url, oldToken, "getMe")).status === 401, 2000, "old token refused on B");
    expect((await botCall(b.url, newToken, "getMe")).status).toBe(200);

    const admin = await signedInClient(a, { isAdmin: true });
    const victim = await quickPerson(a);
    const onB = onNode(victim.client, b);
    expect((await onB.get("/api/auth/me")).status).toBe(200);
    const ws = await WsClient.open(b.url, onB);
    expect((await admin.client.post(`/api/admin/accounts/${victim.user.username}/disable`)).status).toBe(200);
    const refused = await onB.get("/api/auth/me");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("ACCOUNT_DISABLED");
    // and B's open socket of that account is closed (session revoked on every node)
    expect(await ws.waitClosed(5000)).toBe(4001);
  });

  test("a grammY bot polling B answers a button press and a Pay pressed on A", async () => {
    const owner = (await signedInClient(a)).client;
    const person = await quickPerson(a);
    const token = await createBotViaApi(owner, "cluster_shop_bot", "Shop");
    const cid = await openChat(person.client, "cluster_shop_bot");
    await grantStars(a.app, person.user.id, 50, "welcome");
    const bot = new Bot(token, { client: { apiRoot: b.url } });
    bot.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` }));
    bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    const running = bot.start({ timeout: 5 });
    try {
      const invoiceId = await pressButtonAndPay(b.url, token, botApiUserId(person.user.id), person.client, cid);
      expect((await person.client.get("/api/stars/balance")).body.data.balance).toBe(43);
      // paid once: a second press is refused whichever node it reaches
      const again = await onNode(person.client, b).post(`/api/social/messages/${cid}/${invoiceId}/pay`);
      expect(again.status).toBeGreaterThanOrEqual(400);
    } finally {
      await bot.stop();
      await running;
    }
  });

  test("with both nodes' webhook workers running, each update is delivered once, in order", async () => {
    const owner = (await signedInClient(a)).client;
    const token = await createBotViaApi(owner, "cluster_hook_bot", "Hook");
    const people = [await quickPerson(a), await quickPerson(a)];
    const chats = await Promise.all(people.map((p) => openChat(p.client, "cluster_hook_bot")));
    const received: number[] = [];
    const hook = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const update = (await req.json()) as { update_id: number };
        // slow enough that both nodes' scans see the update while it is being sent
        await Bun.sleep(30);
        received.push(update.update_id);
        return new Response("{}", { headers: { "content-type": "application/json" } });
      },
    });
    try {
      expect((await botCall(a.url, token, "setWebhook", { url: `http://127.0.0.1:${hook.port}/hook` })).status).toBe(
        200,
      );
      for (let i = 0; i < 3; i++)
        for (const [n, p] of people.entries()) {
          const client = n === 0 ? p.client : onNode(p.client, b);
          expect((await client.post(`/api/social/messages/${chats[n]}`, { content: `m${i}` })).status).toBe(200);
        }
      await waitFor(() => received.length >= 6, 15_000, "six webhook deliveries");
      // both workers rescan on every kick and every few seconds: give a duplicate the chance to show
      await Bun.sleep(500);
      expect(received).toHaveLength(6);
      expect(new Set(received).size).toBe(6);
      expect([...received].sort((x, y) => x - y)).toEqual(received);
    } finally {
      hook.stop(true);
    }
  });

  test("rate limits count the calls of both nodes together", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const onB = onNode(alice.client, b);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await alice.client.post(`/api/social/messages/${cid}`, { content: `a${i}` })).status);
      statuses.push((await onB.post(`/api/social/messages/${cid}`, { content: `b${i}` })).status);
    }
    // limits.messagesPerMinute is 4 for the instance, not 4 per node
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await onB.post(`/api/social/messages/${cid}`, { content: "more" });
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("Redis going away and coming back", () => {
  test("B stays ready saying Redis is away; its streams are cut and resume, and messages flow again once Redis is back", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const ws = await WsClient.open(b.url, onNode(bob.client, b));
    await redis.kill();
    // a node without Redis says so, and still serves (with its own realtime and limits)
    const degraded = await fetch(`${b.url}/readyz`);
    expect(degraded.status).toBe(200);
    const body = (await degraded.json()) as { status: string; checks: Record<string, string>; engines: any };
    expect(body.status).toBe("degraded");
    expect(body.checks).toEqual({ database: "ok" });
    expect(body.engines.pubsub).toStartWith("redis: ");
    await redis.revive();
    // the node cannot know what it missed while disconnected: the client is told to resume
    expect(await ws.waitClosed(15_000)).toBe(4008);
    await waitFor(async () => (await pubsub(b.app).problem()) === null, 15_000, "B reconnected to Redis");
    await waitFor(async () => (await pubsub(a.app).problem()) === null, 15_000, "A reconnected to Redis");
    expect(await (await fetch(`${b.url}/readyz`)).json()).toEqual({
      status: "ready",
      checks: { database: "ok" },
      engines: { pubsub: "ok" },
    });
    const again = await WsClient.open(b.url, onNode(bob.client, b));
    try {
      expect((await alice.client.post(`/api/social/messages/${cid}`, { content: "after the outage" })).status).toBe(
        200,
      );
      await again.waitFor(
        (f) => f.some((x) => x.event === "message:new" && x.data.message.content === "after the outage"),
        5000,
      );
    } finally {
      again.close();
    }
  });
});
