import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { botCall, botWorld, createBotViaApi, waitFor, type BotWorld } from "../testing/botapi";
import { startTestServer } from "../testing/server";

let world: BotWorld;
let token: string;
beforeAll(async () => {
  world = await botWorld({
    "metrics.enabled": true,
    "metrics.token": "scrape-secret",
    "bot.allowPrivateWebhooks": true,
  });
  token = await createBotViaApi(world.owner, "metrics_bot");
});
afterAll(() => world.server.stop());

const scrape = (url: string, auth = "Bearer scrape-secret") =>
  fetch(`${url}/metrics`, { headers: auth ? { authorization: auth } : {} });

async function families(url: string) {
  const res = await scrape(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
}

describe("/metrics", () => {
  test("requests by route pattern and status, Bot API calls by method and error code, gauges; parsed by a Prometheus text parser", async () => {
    const { owner, server } = world;
    expect((await owner.get("/api/social/users/nobody_here")).status).toBe(404);
    expect((await owner.get("/api/auth/me")).status).toBe(200);
    expect((await fetch(`${server.url}/no/such/path/42`)).status).toBe(404);
    // refused before routing (no CSRF header)
    expect((await fetch(`${server.url}/api/social/posts/42/like`, { method: "POST" })).status).toBe(403);
    expect((await botCall(server.url, token, "getMe")).status).toBe(200);
    expect((await botCall(server.url, token, "GETME")).status).toBe(200);
    expect((await botCall(server.url, token, "noSuchMethod")).status).toBe(404);
    expect((await botCall(server.url, token, "sendMessage", { chat_id: 1 })).status).toBe(400);

    const all = await families(server.url);
    const requests = all.get("social_http_requests_total")!;
    expect(requests.type).toBe("COUNTER");
    const routes = requests.metrics.map((m) => m.labels!);
    expect(routes).toContainEqual({ method: "GET", route: "/api/social/users/:username", status: "404" });
    expect(routes).toContainEqual({ method: "GET", route: "/api/auth/me", status: "200" });
    // the web app's catch-all pattern, not the path
    expect(routes).toContainEqual({ method: "GET", route: "/*", status: "404" });
    expect(routes).toContainEqual({ method: "POST", route: "none", status: "403" });
    expect(routes).toContainEqual({ method: "POST", route: "/api/bot/:token/:method", status: "200" });
    // never a raw path: no ids, usernames or tokens in labels
    const labelText = JSON.stringify(routes);
    expect(labelText).not.toContain("nobody_here");
    expect(labelText).not.toContain(token.split(":")[1]!);
    expect(labelText).not.toContain("/42");

    expect(all.get("social_http_request_duration_seconds")!.type).toBe("HISTOGRAM");
    // this parser folds labelled histogram series together, so their lines are read as text
    const text = await (await scrape(server.url)).text();
    const series = (suffix: string) =>
      new RegExp(`^social_http_request_duration_seconds_${suffix}\\{([^}]*route="/api/auth/me"[^}]*)\\} (\\S+)$`, "m");
    const inf = series("bucket").exec(
      text
        .split("\n")
        .filter((l) => l.includes('le="+Inf"'))
        .join("\n"),
    )!;
    const count = series("count").exec(text)!;
    expect(inf[1]).toContain('status="200"');
    expect(Number(count[2])).toBeGreaterThanOrEqual(1);
    expect(Number(inf[2])).toBe(Number(count[2]));

    const calls = all
      .get("social_botapi_calls_total")!
      .metrics.map((m) => [m.labels!.method, m.labels!.code, Number(m.value)]);
    expect(calls).toContainEqual(["getMe", "200", 2]);
    expect(calls).toContainEqual(["unknown", "404", 1]);
    expect(calls).toContainEqual(["sendMessage", "400", 1]);

    const gauge = (name: string) => Number(all.get(name)!.metrics[0]!.value);
    expect(gauge("social_database_bytes")).toBeGreaterThan(0);
    expect(gauge("social_database_wal_bytes")).toBeGreaterThanOrEqual(0);
    expect(gauge("social_bot_updates_queued")).toBeGreaterThanOrEqual(0);
    expect(gauge("social_realtime_connections")).toBe(0);
    expect(all.get("social_backup_age_seconds")!.metrics[0]!.value).toBe("+Inf");
    expect(gauge("process_resident_memory_bytes")).toBeGreaterThan(1e6);
  });

  test("queued updates and realtime connections follow what happens", async () => {
    const { server, person } = world;
    // a person writes to the bot: one update waits for getUpdates
    const chat = await person.post("/api/social/users/metrics_bot/message", {});
    expect(chat.status).toBe(200);
    await person.post(`/api/social/messages/${chat.body.data.conversationId}`, { content: "hi" });
    const sse = await fetch(`${server.url}/api/realtime/events`, { headers: { cookie: person.cookieHeader() } });
    expect(sse.status).toBe(200);
    const all = await families(server.url);
    expect(Number(all.get("social_bot_updates_queued")!.metrics[0]!.value)).toBeGreaterThanOrEqual(1);
    // the send committed in a write group (of one: nothing else was writing)
    const groups = all.get("social_db_write_group_size")!;
    expect(groups.type).toBe("HISTOGRAM");
    const sizes = groups.metrics[0] as unknown as { count: string; buckets: Record<string, string> };
    expect(Number(sizes.count)).toBeGreaterThanOrEqual(1);
    expect(Number(sizes.buckets["1"])).toBeGreaterThanOrEqual(1);
    expect(Number(all.get("social_realtime_connections")!.metrics[0]!.value)).toBe(1);
    await sse.body!.cancel();
  });

  test("webhook deliveries are counted by result", async () => {
    const { server, person } = world;
    const hook = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("{}") });
    const delivered = async () => {
      const m = (await families(server.url))
        .get("social_webhook_deliveries_total")
        ?.metrics.find((x) => x.labels!.result === "ok");
      return Number(m?.value ?? 0);
    };
    try {
      const before = await delivered();
      expect(
        (await botCall(server.url, token, "setWebhook", { url: `http://127.0.0.1:${hook.port}/hook` })).status,
      ).toBe(200);
      const chat = await person.post("/api/social/users/metrics_bot/message", {});
      await person.post(`/api/social/messages/${chat.body.data.conversationId}`, { content: "to the webhook" });
      await waitFor(async () => (await delivered()) > before, 10_000, "a counted delivery");
    } finally {
      await botCall(server.url, token, "deleteWebhook");
      hook.stop(true);
    }
  });

  test("the token is required: none or a wrong one is 401", async () => {
    expect((await scrape(world.server.url, "")).status).toBe(401);
    expect((await scrape(world.server.url, "Bearer wrong")).status).toBe(401);
  });
});

describe("/metrics placement", () => {
  test("off by default, and not served on the main listener without a token", async () => {
    for (const overrides of [{}, { "metrics.enabled": true }]) {
      const s = await startTestServer(overrides);
      try {
        expect((await scrape(s.url, "")).status).toBe(404);
      } finally {
        await s.stop();
      }
    }
  });

  test("metrics.port: a loopback listener of its own, the main one does not answer", async () => {
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = probe.port!;
    probe.stop(true);
    const s = await startTestServer({ "metrics.enabled": true, "metrics.port": port });
    try {
      expect((await scrape(s.url, "")).status).toBe(404);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      const names = parsePrometheusTextFormat(await res.text()).map((f) => f.name);
      expect(names).toContain("social_http_requests_total");
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await s.stop();
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
