import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import type { TestClient } from "../testing/client";
import { fewestStatements } from "../testing/statements";
import { botWorld, botCall, createBotViaApi, openChat, PNG_1x1, waitFor, waitForLongPoll } from "../testing/botapi";

let server: TestServer;
let owner: TestClient;
let person: TestClient;

beforeAll(async () => void ({ server, owner, person } = await botWorld({ "bot.allowPrivateWebhooks": true })));
afterAll(() => server.stop());

const call = (token: string, method: string, params: Record<string, unknown> = {}) =>
  botCall(server.url, token, method, params);

describe("getUpdates", () => {
  test("offset acknowledges durably, negative offset keeps the last N, limit bounds the batch", async () => {
    const token = await createBotViaApi(owner, "queue_bot");
    const cid = await openChat(person, "queue_bot");
    for (const text of ["one", "two", "three", "four"])
      await person.post(`/api/social/messages/${cid}`, { content: text });
    const all = await call(token, "getUpdates");
    expect(all.status).toBe(200);
    expect(all.body.result.map((u: any) => u.message.text)).toEqual(["one", "two", "three", "four"]);
    const ids = all.body.result.map((u: any) => u.update_id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const first = all.body.result[0];
    expect(first.message.chat).toMatchObject({ type: "private" });
    expect(first.message.from.is_bot).toBe(false);
    expect(Object.values(first.message).includes(null)).toBe(false);

    const limited = await call(token, "getUpdates", { limit: 2 });
    expect(limited.body.result.length).toBe(2);
    const acked = await call(token, "getUpdates", { offset: ids[2] });
    expect(acked.body.result.map((u: any) => u.message.text)).toEqual(["three", "four"]);
    // acknowledged updates never come back, even without offset
    expect((await call(token, "getUpdates")).body.result.map((u: any) => u.message.text)).toEqual(["three", "four"]);
    const last = await call(token, "getUpdates", { offset: -1 });
    expect(last.body.result.map((u: any) => u.message.text)).toEqual(["four"]);
    expect((await call(token, "getUpdates")).body.result.map((u: any) => u.message.text)).toEqual(["four"]);
    expect((await call(token, "getUpdates", { offset: ids[3] + 1 })).body.result).toEqual([]);
  });

  test("a poll reads its queue in one statement; a repeated offset adds one read, a new one its delete", async () => {
    const token = await createBotViaApi(owner, "counted_bot");
    const cid = await openChat(person, "counted_bot");
    await person.post(`/api/social/messages/${cid}`, { content: "hello" });
    const started = await call(token, "getUpdates");
    const next = started.body.result.at(-1).update_id + 1;
    await call(token, "getUpdates", { offset: next });
    // the token's bot comes from the identity cache (PostgreSQL reads its stamp first), which a
    // write to bots or accounts in between (a busy machine's other tests' bots) makes read again,
    // so each count is the fewest of a few tries
    const sqlite = server.app.storage.engine === "sqlite";
    const fewest = (tries: number, params: () => Record<string, unknown>) =>
      fewestStatements(server.app.storage, () => call(token, "getUpdates", params()), { tries });
    const idle = await fewest(3, () => ({ timeout: 0 }));
    const repeated = await fewest(3, () => ({ offset: next }));
    // the queue's read is then the call's only statement
    if (sqlite) expect(idle).toBe(1);
    expect(repeated - idle).toBe(1);
    for (const text of ["a", "b", "c"]) await person.post(`/api/social/messages/${cid}`, { content: text });
    // any limit of the range: each is its own compiled shape
    for (const limit of [1, 2, 100])
      expect((await call(token, "getUpdates", { limit })).body.result.length).toBe(Math.min(limit, 3));
    // acknowledging happens once per offset: each try acknowledges one more update
    const ids = (await call(token, "getUpdates")).body.result.map((u: any) => u.update_id);
    let acknowledged = 0;
    const acknowledging = await fewest(2, () => ({ offset: ids[++acknowledged] }));
    expect(acknowledging - idle).toBe(2);
    expect((await call(token, "getUpdates")).body.result.map((u: any) => u.message.text)).toEqual(["c"]);
  });

  test("long poll is woken at once by a new update", async () => {
    const token = await createBotViaApi(owner, "wake_bot");
    const cid = await openChat(person, "wake_bot");
    const started = Date.now();
    const poll = call(token, "getUpdates", { timeout: 40 });
    await Bun.sleep(100);
    await person.post(`/api/social/messages/${cid}`, { content: "wake up" });
    const res = await poll;
    expect(res.body.result.map((u: any) => u.message.text)).toEqual(["wake up"]);
    // woken, not answered at the end of its 40 s (with room for a busy machine)
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  test("an empty long poll ends after its timeout with an empty list", async () => {
    const token = await createBotViaApi(owner, "idle_bot");
    const started = Date.now();
    const res = await call(token, "getUpdates", { timeout: 1 });
    expect(res.body).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  test("a second getUpdates ends the first with 409 Conflict", async () => {
    const token = await createBotViaApi(owner, "twice_bot");
    const first = call(token, "getUpdates", { timeout: 10 });
    await waitForLongPoll(server.app, token);
    const second = await call(token, "getUpdates", { timeout: 0 });
    expect(second.status).toBe(200);
    const r = await first;
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      ok: false,
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });
  });

  test("allowed_updates is stored and filters what is queued", async () => {
    const token = await createBotViaApi(owner, "picky_bot");
    await call(token, "getUpdates", { allowed_updates: ["callback_query"] });
    const cid = await openChat(person, "picky_bot");
    await person.post(`/api/social/messages/${cid}`, { content: "ignored" });
    expect((await call(token, "getUpdates")).body.result).toEqual([]);
    await call(token, "getUpdates", { allowed_updates: [] });
    await person.post(`/api/social/messages/${cid}`, { content: "seen" });
    expect((await call(token, "getUpdates")).body.result.map((u: any) => u.message.text)).toEqual(["seen"]);
  });

  test("out-of-range limit and timeout are clamped and an unreadable offset confirms nothing, as the compatible server does", async () => {
    const token = await createBotViaApi(owner, "badpoll_bot");
    const cid = await openChat(person, "badpoll_bot");
    for (const text of ["one", "two", "three"]) await person.post(`/api/social/messages/${cid}`, { content: text });
    const texts = async (params: Record<string, unknown>) => {
      const r = await call(token, "getUpdates", params);
      expect({ params, status: r.status }).toEqual({ params, status: 200 });
      return r.body.result.map((u: any) => u.message.text);
    };
    expect(await texts({ limit: 0 })).toEqual(["one"]);
    expect(await texts({ limit: -5 })).toEqual(["one"]);
    expect(await texts({ limit: 101 })).toEqual(["one", "two", "three"]);
    expect(await texts({ limit: "2" })).toEqual(["one", "two"]);
    expect(await texts({ offset: "abc" })).toEqual(["one", "two", "three"]);
    expect(await texts({ offset: [] })).toEqual(["one", "two", "three"]);
    const started = Date.now();
    expect(await texts({ timeout: -1 })).toEqual(["one", "two", "three"]);
    expect(await texts({ timeout: "soon" })).toEqual(["one", "two", "three"]);
    // answered at once, not held for a long poll's wait
    expect(Date.now() - started).toBeLessThan(10_000);
    // a timeout beyond the longest wait is cut to it, not refused
    const ids = (await call(token, "getUpdates")).body.result.map((u: any) => u.update_id);
    const long = call(token, "getUpdates", { offset: ids.at(-1) + 1, timeout: 1000 });
    await waitForLongPoll(server.app, token);
    await person.post(`/api/social/messages/${cid}`, { content: "four" });
    expect((await long).body.result.map((u: any) => u.message.text)).toEqual(["four"]);
    expect(await call(token, "getUpdates", { allowed_updates: "message" })).toMatchObject({ status: 400 });
  });

  test("setWebhook ends a waiting getUpdates with 409, so an update reaches the webhook alone", async () => {
    const token = await createBotViaApi(owner, "switching_bot");
    const cid = await openChat(person, "switching_bot");
    const received: string[] = [];
    const hook = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        received.push(((await req.json()) as any).message.text);
        return new Response("ok");
      },
    });
    try {
      const poll = call(token, "getUpdates", { timeout: 10 });
      await waitForLongPoll(server.app, token);
      const set = await call(token, "setWebhook", { url: `http://127.0.0.1:${hook.port}/hook` });
      expect(set.body).toEqual({ ok: true, result: true, description: "Webhook was set" });
      expect(await poll).toMatchObject({
        status: 409,
        body: { ok: false, error_code: 409, description: "Conflict: terminated by setWebhook request" },
      });
      await person.post(`/api/social/messages/${cid}`, { content: "to the hook" });
      await waitFor(() => received.length === 1, 5000, "the webhook delivery");
      expect(received).toEqual(["to the hook"]);
      expect((await call(token, "setWebhook", { url: `http://127.0.0.1:${hook.port}/hook` })).body).toEqual({
        ok: true,
        result: true,
        description: "Webhook is already set",
      });
      expect((await call(token, "deleteWebhook")).body).toEqual({
        ok: true,
        result: true,
        description: "Webhook was deleted",
      });
      expect((await call(token, "deleteWebhook")).body).toEqual({
        ok: true,
        result: true,
        description: "Webhook is already deleted",
      });
      expect((await call(token, "setWebhook", { url: "" })).body.description).toBe("Webhook is already deleted");
    } finally {
      hook.stop(true);
    }
  });

  test("a person's photo reaches the bot as photo with its URL as file_id and the text as caption", async () => {
    const token = await createBotViaApi(owner, "media_in_bot");
    const cid = await openChat(person, "media_in_bot");
    const form = new FormData();
    form.set("kind", "chat-image");
    form.set("file", new File([PNG_1x1], "me.png", { type: "image/png" }));
    const up = await person.post("/api/account/upload", form);
    expect(up.status).toBe(200);
    expect(
      (
        await person.post(`/api/social/messages/${cid}`, {
          content: "look",
          media: [{ type: "image", url: up.body.data.url }],
        })
      ).status,
    ).toBe(200);
    const update = (await call(token, "getUpdates")).body.result.at(-1);
    expect(update.message.caption).toBe("look");
    expect(update.message.text).toBeUndefined();
    expect(update.message.photo[0]).toMatchObject({
      file_id: up.body.data.url,
      file_unique_id: up.body.data.url,
      width: 1,
      height: 1,
    });
  });
});

describe("webhooks", () => {
  test("deliveries retry with backoff after the receiver fails twice; order kept; errors reported", async () => {
    const token = await createBotViaApi(owner, "retry_bot");
    const received: any[] = [];
    const headers: Headers[] = [];
    let failures = 0;
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        headers.push(req.headers);
        if (failures < 2) {
          failures++;
          return new Response("down", { status: 502 });
        }
        received.push(await req.json());
        return new Response("", { status: 200 });
      },
    });
    try {
      expect(
        (await call(token, "setWebhook", { url: `http://127.0.0.1:${receiver.port}/h`, secret_token: "retry_secret" }))
          .body.result,
      ).toBe(true);
      const cid = await openChat(person, "retry_bot");
      await person.post(`/api/social/messages/${cid}`, { content: "first" });
      await person.post(`/api/social/messages/${cid}`, { content: "second" });
      await waitFor(
        async () => {
          const info = await call(token, "getWebhookInfo");
          return info.body.result.last_error_message !== undefined && info.body.result;
        },
        5000,
        "a recorded webhook error",
      );
      const info = (await call(token, "getWebhookInfo")).body.result;
      expect(info.last_error_message).toBe("Wrong response from the webhook: 502 Bad Gateway");
      expect(typeof info.last_error_date).toBe("number");
      expect(info.pending_update_count).toBe(0);
      await waitFor(() => received.length === 2, 8000, "two delivered updates");
      expect(received.map((u) => u.message.text)).toEqual(["first", "second"]);
      expect(failures).toBe(2);
      expect(headers[0]!.get("content-type")).toBe("application/json");
      expect(headers.every((h) => h.get("x-telegram-bot-api-secret-token") === "retry_secret")).toBe(true);
    } finally {
      receiver.stop(true);
      await call(token, "deleteWebhook");
    }
  }, 15_000);

  test("a method in the webhook's JSON answer is executed (webhook reply); deliveries never carry null", async () => {
    const token = await createBotViaApi(owner, "reply_hook_bot");
    const bodies: string[] = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        bodies.push(await req.text());
        const update = JSON.parse(bodies.at(-1)!) as any;
        return Response.json({
          method: "sendMessage",
          chat_id: update.message.chat.id,
          text: `auto: ${update.message.text}`,
        });
      },
    });
    try {
      await call(token, "setWebhook", { url: `http://127.0.0.1:${receiver.port}/` });
      const cid = await openChat(person, "reply_hook_bot");
      // a client may store fields set to null; the bot is never shown them
      await person.post(`/api/social/messages/${cid}`, {
        content: "ping",
        entities: [{ type: "bold", offset: 0, length: 4, url: null }],
      });
      await waitFor(
        async () => {
          const res = await person.get(`/api/social/messages/${cid}`);
          return res.body.data.messages.some((m: any) => m.content === "auto: ping");
        },
        5000,
        "the webhook reply message",
      );
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).not.toContain("null");
      expect(JSON.parse(bodies[0]!).message.entities).toEqual([{ type: "bold", offset: 0, length: 4 }]);
    } finally {
      receiver.stop(true);
      await call(token, "deleteWebhook");
    }
  });
});

describe("refusals a retrying bot would repeat at once are held, as the compatible server holds them", () => {
  /** Times CALL while checking that the server answers another request meanwhile (a timer holds, not the event loop). */
  const timedWhileServing = async <T>(call: Promise<T>, otherToken: string) => {
    const started = Date.now();
    await Bun.sleep(200);
    const other = Date.now();
    expect((await botCall(server.url, otherToken, "getMe")).status).toBe(200);
    const otherMs = Date.now() - other;
    const answer = await call;
    return { answer, ms: Date.now() - started, otherMs };
  };

  test("two pollers: the first conflict answers at once, the next within the hold waits for it", async () => {
    const token = await createBotViaApi(owner, "spinning_bot");
    const bystander = await createBotViaApi(owner, "bystander_bot");
    const a = call(token, "getUpdates", { timeout: 10 });
    await waitForLongPoll(server.app, token);
    const started = Date.now();
    const b = call(token, "getUpdates", { timeout: 10 });
    expect((await a).status).toBe(409);
    expect(Date.now() - started).toBeLessThan(2000);
    await waitForLongPoll(server.app, token);
    // A polls again at once: B's conflict comes within the hold
    const again = call(token, "getUpdates", { timeout: 0 });
    const { answer, ms, otherMs } = await timedWhileServing(b, bystander);
    expect(answer).toMatchObject({
      status: 409,
      body: {
        description:
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      },
    });
    expect(ms).toBeGreaterThanOrEqual(2800);
    expect(otherMs).toBeLessThan(1000);
    expect((await again).status).toBe(200);
  });

  test("a 429 is answered after the hold, with its retry_after", async () => {
    const limited = await startTestServer({ "limits.botCallsPerMinute": 2 });
    try {
      const owner = (await signedInClient(limited)).client;
      const token = await createBotViaApi(owner, "flooding_bot");
      const bystander = await createBotViaApi(owner, "calm_bot");
      for (let i = 0; i < 2; i++) expect((await botCall(limited.url, token, "getMe")).status).toBe(200);
      const started = Date.now();
      const refused = botCall(limited.url, token, "getMe");
      await Bun.sleep(200);
      const other = Date.now();
      expect((await botCall(limited.url, bystander, "getMe")).status).toBe(200);
      expect(Date.now() - other).toBeLessThan(1000);
      const answer = await refused;
      expect(Date.now() - started).toBeGreaterThanOrEqual(2800);
      expect(answer.status).toBe(429);
      expect(answer.body.parameters.retry_after).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});
