import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { makeUser } from "../testing/fixtures";
import { createBot, findBotByUserId, reissueToken, setBotEnabledByUsername } from "../domain/bots/service";
import { botApiUserId } from "../domain/bots/ids";
import { USER_ROW_COLUMNS } from "../domain/users/table";
import { pick } from "../lib/objects";
import { openOtherConnection } from "../testing/sql";

let server: TestServer;
let token: string;
let botUserId: number;

beforeAll(async () => {
  server = await startTestServer();
  const owner = await makeUser(server.app);
  const made = await createBot(server.app, { ownerId: owner.id, username: "transport_bot", name: "Transport" });
  token = made.token;
  botUserId = botApiUserId(made.user.id);
});
afterAll(() => server.stop());

const json = (params: Record<string, unknown>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(params),
});
const call = async (path: string, init?: RequestInit) => {
  const res = await fetch(server.url + path, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

describe("Bot API transport", () => {
  test("getMe answers on all three path forms, method names case-insensitive", async () => {
    for (const path of [
      `/api/bot/${token}/getMe`,
      `/api/bot${token}/getme`,
      `/bot${token}/GETME`,
      `/bot${token.replace(":", "%3A")}/getMe`,
    ]) {
      const r = await call(path);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        ok: true,
        result: {
          id: botUserId,
          is_bot: true,
          first_name: "Transport",
          username: "transport_bot",
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
          can_connect_to_business: false,
          has_main_web_app: false,
          has_topics_enabled: false,
          allows_users_to_create_topics: false,
          can_manage_bots: false,
          supports_join_request_queries: false,
        },
      });
    }
  });

  test("invalid token is 401 Unauthorized; malformed bot path is 404", async () => {
    const wrong = `${botUserId}:${"x".repeat(36)}`;
    expect(await call(`/bot${wrong}/getMe`)).toMatchObject({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    expect(await call(`/bot999999:${"y".repeat(36)}/getMe`)).toMatchObject({ status: 401 });
    expect(await call(`/api/bot/nonsense/getMe`)).toMatchObject({ status: 404, body: { ok: false, error_code: 404 } });
    // every token path answers in the Bot API envelope, also without a colon or a method
    for (const path of [
      "/bot12/getMe",
      "/api/bot12/getMe",
      "/api/bot/12/getMe",
      "/botnonsense/getMe",
      "/bot12",
      `/bot${token}/a/b`,
    ]) {
      expect({ path, ...(await call(path)) }).toMatchObject({
        path,
        status: 404,
        body: { ok: false, error_code: 404, description: "Not Found" },
      });
    }
  });

  test("a kept bot's remembered secret lets nothing else through: other secrets, near misses, the empty one", async () => {
    expect((await call(`/bot${token}/getMe`)).status).toBe(200);
    expect((await call(`/bot${token}/getMe`)).status).toBe(200);
    const secret = token.slice(token.indexOf(":") + 1);
    const last = secret.at(-1) === "a" ? "b" : "a";
    for (const wrong of [secret.slice(0, -1) + last, secret.slice(0, -1), `${secret}x`, "", "x".repeat(secret.length)])
      expect({ wrong, ...(await call(`/bot${botUserId}:${wrong}/getMe`)) }).toMatchObject({ wrong, status: 401 });
    expect((await call(`/bot${token}/getMe`)).status).toBe(200);
  });

  test("unknown method is 404 Not Found: method not found", async () => {
    const r = await call(`/bot${token}/sendTelepathy`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ ok: false, error_code: 404, description: "Not Found: method not found" });
  });

  test("parameters from query, JSON, urlencoded and multipart agree; unknown ones are ignored", async () => {
    const commands = [{ command: "start", description: "Start" }];
    const q = await call(
      `/bot${token}/setMyCommands?commands=${encodeURIComponent(JSON.stringify(commands))}&whatever=1`,
    );
    expect(q.body).toEqual({ ok: true, result: true });
    const j = await call(`/bot${token}/setMyCommands`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ commands: [{ command: "help", description: "Help" }], cache_time: 5 }),
    });
    expect(j.body.result).toBe(true);
    expect((await call(`/bot${token}/getMyCommands`)).body.result).toEqual([{ command: "help", description: "Help" }]);
    const u = await call(`/bot${token}/setMyDescription`, {
      method: "POST",
      body: new URLSearchParams({ description: "Hello there", method: "setMyDescription" }),
    });
    expect(u.body.result).toBe(true);
    const form = new FormData();
    form.set("short_description", "Short");
    expect((await call(`/bot${token}/setMyShortDescription`, { method: "POST", body: form })).body.result).toBe(true);
    expect((await call(`/bot${token}/getMyShortDescription`)).body.result).toEqual({ short_description: "Short" });
    expect((await call(`/bot${token}/getMyDescription`)).body.result).toEqual({ description: "Hello there" });
  });

  test("a JSON body that is not an object runs the method on the query's parameters, as the compatible server does", async () => {
    const post = (path: string, body: string) =>
      call(path, { method: "POST", headers: { "content-type": "application/json" }, body });
    // telebot.v3 sends `null` for a method without parameters
    for (const body of ["null", "[]", "{nope", "7", '"text"']) {
      const r = await post(`/bot${token}/getMe`, body);
      expect({ body, status: r.status, username: r.body.result?.username }).toEqual({
        body,
        status: 200,
        username: "transport_bot",
      });
    }
    const described = await post(`/bot${token}/setMyDescription?description=from%20the%20query`, "null");
    expect(described.body).toEqual({ ok: true, result: true });
    expect((await call(`/bot${token}/getMyDescription`)).body.result).toEqual({ description: "from the query" });
  });

  test("/api/bots stays a Client API path (CSRF applies)", async () => {
    const r = await call(`/api/bots`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});

describe("checks that need the default (strict) outbound policy", () => {
  test("setWebhook validation", async () => {
    {
      const c = (params: Record<string, unknown>) => call(`/bot${token}/setWebhook`, json(params));
      expect(await c({ url: "http://example.com/hook" })).toMatchObject({
        status: 400,
        body: { description: "Bad Request: bad webhook: an HTTPS URL must be provided" },
      });
      expect(await c({ url: "https://127.0.0.1/hook" })).toMatchObject({
        status: 400,
        body: { description: "Bad Request: bad webhook: IP address is not public" },
      });
      expect(await c({ url: "https://10.1.2.3/hook" })).toMatchObject({ status: 400 });
      expect(await c({ url: "https://[::1]/hook" })).toMatchObject({ status: 400 });
      expect(await c({ url: "https://169.254.169.254/latest" })).toMatchObject({ status: 400 });
      expect(await c({ url: "https://localhost/hook" })).toMatchObject({
        status: 400,
        body: { description: "Bad Request: bad webhook: URL host is not public" },
      });
      expect(await c({ url: "https://example.com/" + "a".repeat(520) })).toMatchObject({
        status: 400,
        body: { description: "Bad Request: url is too long (maximum 512)" },
      });
      expect(await c({ url: "not a url" })).toMatchObject({
        status: 400,
        body: { description: "Bad Request: bad webhook: invalid URL" },
      });
      expect(await c({ url: "https://example.com/hook", secret_token: "x".repeat(129) })).toMatchObject({
        status: 400,
      });
      expect(await c({ url: "https://example.com/hook", secret_token: "bad secret!" })).toMatchObject({ status: 400 });
      expect(await c({ url: "https://example.com/hook", secret_token: "good_secret-1" })).toMatchObject({
        status: 200,
        body: { ok: true, result: true },
      });
      const info = await call(`/bot${token}/getWebhookInfo`);
      expect(info.body.result).toMatchObject({
        url: "https://example.com/hook",
        has_custom_certificate: false,
        pending_update_count: 0,
      });
      expect((await call(`/bot${token}/deleteWebhook`, json({ drop_pending_updates: true }))).body.result).toBe(true);
      expect((await call(`/bot${token}/getWebhookInfo`)).body.result).toEqual({
        url: "",
        has_custom_certificate: false,
        pending_update_count: 0,
      });
    }
  });

  test("file URLs pointing inside the network are refused", async () => {
    const owner = await makeUser(server.app);
    // a refused address reads like any failed fetch; only the URL's shape is told apart
    for (const [photo, description] of [
      ["https://127.0.0.1/x.png", "Bad Request: failed to get HTTP URL content"],
      ["https://localhost/x.png", "Bad Request: failed to get HTTP URL content"],
      ["http://example.com/x.png", "Bad Request: failed to get HTTP URL content: an HTTPS URL must be provided"],
    ]) {
      const r = await call(`/bot${token}/sendPhoto`, json({ chat_id: owner.id, photo }));
      expect(r).toMatchObject({ status: 400, body: { description } });
    }
  });
});

describe("profile methods", () => {
  test("commands and descriptions are validated", async () => {
    const bad = async (method: string, params: Record<string, unknown>, description: string) => {
      const r = await call(`/bot${token}/${method}`, json(params));
      expect({ method, status: r.status, body: r.body }).toEqual({
        method,
        status: 400,
        body: { ok: false, error_code: 400, description },
      });
    };
    await bad("setMyCommands", {}, "Bad Request: commands is empty");
    await bad("setMyCommands", { commands: "nope" }, "Bad Request: can't parse commands JSON object");
    await bad("setMyCommands", { commands: { command: "a" } }, "Bad Request: commands must be an Array of BotCommand");
    await bad(
      "setMyCommands",
      { commands: [{ command: "Bad-Name", description: "x" }] },
      "Bad Request: command must contain only lowercase English letters, digits and underscores (1-32 characters)",
    );
    await bad(
      "setMyCommands",
      { commands: [{ command: "a".repeat(33), description: "x" }] },
      "Bad Request: command must contain only lowercase English letters, digits and underscores (1-32 characters)",
    );
    await bad("setMyCommands", { commands: [{ command: "ok" }] }, "Bad Request: command description must be non-empty");
    await bad(
      "setMyCommands",
      { commands: [{ command: "ok", description: "d".repeat(257) }] },
      "Bad Request: command description is too long (maximum 256)",
    );
    await bad(
      "setMyCommands",
      { commands: Array.from({ length: 101 }, (_, i) => ({ command: `c${i}`, description: "d" })) },
      "Bad Request: too many commands specified (maximum 100)",
    );
    await bad(
      "setMyDescription",
      { description: "d".repeat(513) },
      "Bad Request: description is too long (maximum 512)",
    );
    await bad(
      "setMyShortDescription",
      { short_description: "d".repeat(121) },
      "Bad Request: short_description is too long (maximum 120)",
    );
    expect(
      (await call(`/bot${token}/setMyCommands`, json({ commands: [{ command: "/start", description: "Go" }] }))).body
        .result,
    ).toBe(true);
    expect((await call(`/bot${token}/getMyCommands`)).body.result).toEqual([{ command: "start", description: "Go" }]);
    expect((await call(`/bot${token}/deleteMyCommands`, json({}))).body.result).toBe(true);
    expect((await call(`/bot${token}/getMyCommands`)).body.result).toEqual([]);
    expect((await call(`/bot${token}/setMyDescription`, json({}))).body.result).toBe(true);
    expect((await call(`/bot${token}/getMyDescription`)).body.result).toEqual({ description: "" });
    expect((await call(`/bot${token}/close`, json({}))).body).toEqual({ ok: true, result: true });
    expect((await call(`/bot${token}/logOut`, json({}))).body).toEqual({ ok: true, result: true });
  });

  test("a bot blocked by moderation is refused with 403", async () => {
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "blocked_bot", name: "Blocked" });
    await server.app.db.updateTable("bots").set({ blocked_at: Date.now() }).where("id", "=", made.bot.id).execute();
    const r = await call(`/bot${made.token}/getMe`);
    expect(r).toMatchObject({
      status: 403,
      body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by moderation" },
    });
  });

  test("a resolved token is cached, yet reissue, disable, enable and settings take effect on the next call", async () => {
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "cached_bot", name: "Cached" });
    expect((await call(`/bot${made.token}/getMe`)).status).toBe(200);

    const fresh = await reissueToken(server.app, made.bot.id);
    expect(await call(`/bot${made.token}/getMe`)).toMatchObject({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    expect((await call(`/bot${fresh}/getMe`)).body.result.username).toBe("cached_bot");

    await setBotEnabledByUsername(server.app, "cached_bot", false);
    expect(await call(`/bot${fresh}/getMe`)).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was disabled by its owner" },
    });
    await setBotEnabledByUsername(server.app, "cached_bot", true);
    expect((await call(`/bot${fresh}/getMe`)).status).toBe(200);

    // changes made through the Bot API itself are seen by the very next call
    expect((await call(`/bot${fresh}/setMyDescription`, json({ description: "first" }))).body.result).toBe(true);
    expect((await call(`/bot${fresh}/getMyDescription`)).body.result).toEqual({ description: "first" });
    expect(
      (await call(`/bot${fresh}/getUpdates`, json({ timeout: 0, allowed_updates: ["callback_query"] }))).body,
    ).toEqual({ ok: true, result: [] });
    expect((await call(`/bot${fresh}/getWebhookInfo`)).body.result.allowed_updates).toEqual(["callback_query"]);
    expect((await call(`/bot${fresh}/getUpdates`, json({ timeout: 0, allowed_updates: [] }))).body).toEqual({
      ok: true,
      result: [],
    });
    expect((await call(`/bot${fresh}/getWebhookInfo`)).body.result.allowed_updates).toBeUndefined();
  });

  test("a change committed by another connection (another process) is seen on the very next call", async () => {
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "elsewhere_bot", name: "Elsewhere" });
    expect((await call(`/bot${made.token}/getMe`)).status).toBe(200);
    // a connection of its own, like a `socialctl` process's: the cache learns of it from data_version
    const other = openOtherConnection(server.dataDir);
    try {
      await other.db.updateTable("bots").set({ disabled_at: Date.now() }).where("id", "=", made.bot.id).execute();
    } finally {
      await other.close();
    }
    expect(await call(`/bot${made.token}/getMe`)).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was disabled by its owner" },
    });
  });

  test("a change written by this process's other features is seen on the next call", async () => {
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "samewhere_bot", name: "Samewhere" });
    expect((await call(`/bot${made.token}/getMe`)).status).toBe(200);
    await server.app.db.updateTable("users").set({ disabled_at: Date.now() }).where("id", "=", made.user.id).execute();
    expect(await call(`/bot${made.token}/getMe`)).toMatchObject({
      status: 403,
      body: { description: "Forbidden: bot was disabled by its owner" },
    });
  });

  test("a bot whose account is deleted is not found", async () => {
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "gone_bot", name: "Gone" });
    const found = await findBotByUserId(server.app.db, made.user.id);
    expect(found?.bot).toEqual(made.bot);
    // an account as the app passes it around (UserRow): without the counters triggers keep
    expect(found?.user).toEqual(pick(made.user, ...USER_ROW_COLUMNS));
    await server.app.db.updateTable("users").set({ deleted_at: Date.now() }).where("id", "=", made.user.id).execute();
    expect(await findBotByUserId(server.app.db, made.user.id)).toBeNull();
    expect(await call(`/bot${made.token}/getMe`)).toMatchObject({ status: 401, body: { description: "Unauthorized" } });
  });

  test("gzip-compressed bodies are read (node-fetch under Bun compresses requests)", async () => {
    const body = Bun.gzipSync(new TextEncoder().encode(JSON.stringify({ description: "zipped" })));
    const r = await call(`/bot${token}/setMyDescription`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body,
    });
    expect(r.body).toEqual({ ok: true, result: true });
    expect((await call(`/bot${token}/getMyDescription`)).body.result).toEqual({ description: "zipped" });
    const broken = await call(`/bot${token}/getMe`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: "not gzip",
    });
    expect(broken).toMatchObject({ status: 400, body: { description: "Bad Request: can't parse request body" } });
  });
});
