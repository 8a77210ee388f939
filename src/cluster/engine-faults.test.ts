import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { RedisClient } from "bun";
import { Bot } from "grammy";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { botCall, createBotViaApi, openChat, waitForLongPoll } from "../testing/botapi";
import { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { startPostgresCluster, type PostgresCluster } from "../testing/postgres";
import { SseClient, WsClient } from "../testing/realtime";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { startTestS3, type TestS3 } from "../testing/s3";
import { startTestServer, type TestServer } from "../testing/server";
import { postUpload } from "../testing/uploads";
import { waitFor } from "../testing/wait";
import { pubsub } from "./pubsub";

/*
 * Two nodes of one instance in this process on a PostgreSQL cluster of this file's own (it is
 * shut down and started again), a real redis-server (restarted, wiped, killed) and an
 * S3-compatible bucket (stopped last): what each engine's fault does to the clients of the nodes.
 */

// a PostgreSQL cluster, two servers and engine restarts on a shared, loaded machine
setDefaultTimeout(120_000);

let cluster: PostgresCluster;
let redis: TestRedis;
let s3: TestS3;
let dataDir: string;
let a: TestServer;
let b: TestServer;

/** CLIENT's session against another node (sessions live in the shared database). */
function onNode(client: TestClient, node: TestServer): TestClient {
  const other = new TestClient(node.url);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  other.csrf = client.csrf;
  return other;
}

const bothReconnected = () =>
  waitFor(
    async () => (await pubsub(a.app).problem()) === null && (await pubsub(b.app).problem()) === null,
    30_000,
    "both nodes reconnected to Redis",
  );

beforeAll(async () => {
  [cluster, redis, s3] = await Promise.all([startPostgresCluster(), startTestRedis(), startTestS3()]);
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-faults-"));
  const settings = {
    "database.url": await cluster.createDatabase("social"),
    "pubsub.url": redis.url,
    ...s3.settings,
    "limits.messagesPerMinute": 1_000_000,
  };
  // one after the other: the first migrates the empty database
  a = await startTestServer(settings, { dataDir });
  b = await startTestServer(settings, { dataDir });
});

afterAll(async () => {
  await a?.stop().catch(() => {});
  await b?.stop().catch(() => {});
  await redis?.stop();
  await s3?.stop();
  cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("Redis restarted or wiped", () => {
  test("a grammY bot long-polling B through a Redis restart keeps waiting and receiving: no 409, no update lost", async () => {
    const owner = (await signedInClient(a)).client;
    const person = await quickPerson(a);
    const token = await createBotViaApi(owner, "restart_poll_bot", "Poll");
    const cid = await openChat(person.client, "restart_poll_bot");
    const received: string[] = [];
    const refusals: number[] = [];
    const bot = new Bot(token, { client: { apiRoot: b.url } });
    bot.api.config.use(async (prev, method, payload, signal) => {
      const res = await prev(method, payload, signal);
      if (!res.ok) refusals.push(res.error_code);
      return res;
    });
    bot.on("message:text", (ctx) => void received.push(ctx.message.text));
    let stopped: unknown = null;
    // short polls: several calls (each a newer generation) before and after the restart
    const running = bot.start({ timeout: 2 }).catch((err) => (stopped = err));
    try {
      const send = async (content: string) =>
        expect((await person.client.post(`/api/social/messages/${cid}`, { content })).status).toBe(200);
      await send("before the restart");
      await waitFor(() => received.includes("before the restart"), 20_000, "the first update");
      // let a few more getUpdates calls go by, the last one parked on B
      await Bun.sleep(3000);
      await redis.kill();
      await redis.revive();
      await bothReconnected();
      // the bot polls on: its next calls come after the restart
      await Bun.sleep(3000);
      expect(stopped).toBeNull();
      await send("after the restart");
      await waitFor(() => received.includes("after the restart"), 20_000, "the update sent after the restart");
      expect(received).toEqual(["before the restart", "after the restart"]);
      expect(refusals.filter((code) => code === 409)).toEqual([]);
      expect(stopped).toBeNull();
    } finally {
      if (bot.isRunning()) await bot.stop();
      await running;
    }
  });

  test("a stream resumed after Redis was wiped gets stream:reset, even though events were published since", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const first = await SseClient.open(b.url, onNode(bob.client, b));
    expect((await alice.client.post(`/api/social/messages/${cid}`, { content: "before the wipe" })).status).toBe(200);
    await first.waitFor((f) => f.some((x) => x.event === "message:new"), 10_000);
    const lastSeen = first.frames.find((x) => x.event === "message:new")!.id!;
    first.close();

    const admin = new RedisClient(redis.url);
    try {
      await admin.send("FLUSHALL", []);
    } finally {
      admin.close();
    }
    // sent after the wipe: the log holds this one but cannot know what came between
    expect((await alice.client.post(`/api/social/messages/${cid}`, { content: "after the wipe" })).status).toBe(200);
    const resumed = await SseClient.open(b.url, onNode(bob.client, b), { lastEventId: lastSeen });
    try {
      await resumed.waitFor((f) => f.some((x) => x.event === "stream:reset"), 10_000, "stream:reset");
      expect(resumed.frames[0]).toMatchObject({ event: "stream:reset", data: { reason: "gap" } });
      // a resume from the reset's id goes on from there
      const resetId = resumed.frames[0]!.id!;
      expect(resetId).toBeGreaterThan(lastSeen);
      expect((await alice.client.post(`/api/social/messages/${cid}`, { content: "then" })).status).toBe(200);
      const again = await SseClient.open(a.url, bob.client, { lastEventId: resetId });
      try {
        await again.waitFor((f) => f.some((x) => x.event === "message:new"), 10_000);
        expect(again.frames.some((x) => x.event === "stream:reset")).toBe(false);
        expect(again.frames.filter((x) => x.event === "message:new").map((x) => x.data.message.content)).toEqual([
          "then",
        ]);
      } finally {
        again.close();
      }
    } finally {
      resumed.close();
    }
  });
});

describe("PostgreSQL shut down and started again", () => {
  test("requests get 503 with Retry-After in both envelopes while it is down, and succeed once it is back, the nodes untouched", async () => {
    const owner = (await signedInClient(a)).client;
    const token = await createBotViaApi(owner, "pg_outage_bot", "Out");
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    expect((await botCall(b.url, token, "getUpdates", { timeout: 0 })).status).toBe(200);

    cluster.shutDown();
    try {
      const sent = await onNode(alice.client, b).post(`/api/social/messages/${cid}`, { content: "while down" });
      expect(sent.status).toBe(503);
      expect(sent.body).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
      expect(Number(sent.headers.get("retry-after"))).toBeGreaterThan(0);
      const read = await alice.client.get(`/api/social/messages/${cid}`);
      expect(read.status).toBe(503);
      expect(read.body.error.code).toBe("SERVICE_UNAVAILABLE");

      const polled = await botCall(b.url, token, "getUpdates", { timeout: 0 });
      expect(polled.status).toBe(503);
      expect(polled.body).toMatchObject({ ok: false, error_code: 503 });
      expect(polled.body.parameters.retry_after).toBeGreaterThan(0);
      expect(Number(polled.headers.get("retry-after"))).toBe(polled.body.parameters.retry_after);

      // the node cannot serve: not ready; but the process lives
      const ready = await fetch(`${a.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).not.toBe("ok");
      expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    } finally {
      cluster.startUp();
    }
    await waitFor(async () => (await fetch(`${a.url}/readyz`)).status === 200, 30_000, "A ready again");
    await waitFor(async () => (await fetch(`${b.url}/readyz`)).status === 200, 30_000, "B ready again");
    const sent = await onNode(alice.client, b).post(`/api/social/messages/${cid}`, { content: "back again" });
    expect(sent.status).toBe(200);
    const read = await onNode(bob.client, a).get(`/api/social/messages/${cid}`);
    expect(read.status).toBe(200);
    expect(read.body.data.messages.map((m: { content: string }) => m.content)).toEqual(["back again"]);
    expect((await botCall(a.url, token, "getUpdates", { timeout: 0 })).status).toBe(200);
  });
});

describe("Redis and the bucket down", () => {
  test("both nodes stay ready, saying what is missing; messages are sent and reach the node's own streams; file routes answer 503", async () => {
    const alice = await quickPerson(a);
    const bob = await quickPerson(a);
    const cid = await openChat(alice.client, bob.user.username);
    const bytes = crypto.getRandomValues(new Uint8Array(10_000));
    const up = await postUpload(alice.client, "chat-file", bytes, { filename: "kept.bin" });
    expect(up.status).toBe(200);
    const filePath = new URL(up.body.data.url as string, a.url).pathname;
    const ws = await WsClient.open(a.url, bob.client);
    const owner = (await signedInClient(a, { isAdmin: true })).client;
    const token = await createBotViaApi(owner, "no_redis_bot", "Alone");
    const toBot = await openChat(alice.client, "no_redis_bot");
    await redis.kill();
    await s3.stop();
    try {
      for (const node of [a, b]) {
        const res = await fetch(`${node.url}/readyz`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { status: string; checks: Record<string, string>; engines: any };
        expect(body.status).toBe("degraded");
        expect(body.checks).toEqual({ database: "ok" });
        expect(body.engines.pubsub).toStartWith("redis: ");
        expect(body.engines.files).toStartWith("s3: ");
      }
      // sent, and seen live on the node it was sent through
      const sent = await alice.client.post(`/api/social/messages/${cid}`, { content: "without redis" });
      expect(sent.status).toBe(200);
      await ws.waitFor(
        (f) => f.some((x) => x.event === "message:new" && x.data.message.content === "without redis"),
        10_000,
        "the message on A's own stream",
      );
      // the admin area's status says the same, from the node itself
      const status = (await owner.get("/api/admin/status")).body.data.status;
      expect(status.server.readiness.status).toBe("degraded");
      expect(status.server.readiness.engines.pubsub).toStartWith("redis: ");
      // a long poll parked on A is woken by what is queued through A
      const parked = botCall(a.url, token, "getUpdates", { timeout: 20 });
      await waitForLongPoll(a.app, token);
      const t0 = performance.now();
      expect((await alice.client.post(`/api/social/messages/${toBot}`, { content: "to the bot" })).status).toBe(200);
      const woken = await parked;
      expect(woken.status).toBe(200);
      expect(woken.body.result.map((u: any) => u.message.text)).toEqual(["to the bot"]);
      expect(performance.now() - t0).toBeLessThan(10_000);
      // only the file routes fail, and as unavailable (retry later), not as a server error
      const upload = await postUpload(alice.client, "chat-file", bytes, { filename: "new.bin" });
      expect(upload.status).toBe(503);
      expect(upload.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(Number(upload.headers.get("retry-after"))).toBeGreaterThan(0);
      const file = await fetch(`${b.url}${filePath}`, { headers: { cookie: alice.client.cookieHeader() } });
      expect(file.status).toBe(503);
      expect(Number(file.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      ws.close();
    }
  });
});
