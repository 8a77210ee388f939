import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../../testing/server";
import { signedInClient } from "../../testing/fixtures";
import type { TestClient } from "../../testing/client";
import type { UserRow } from "../../domain/users/table";
import { verifyWebAppData } from "../../domain/bots/webapp";
import { botWorld, botCall, createBotViaApi, openChat } from "../../testing/botapi";
import { waitFor } from "../../testing/wait";
import { botApiUserId } from "../../domain/bots/ids";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let outsider: TestClient;

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld());
  outsider = (await signedInClient(server)).client;
});
afterAll(() => server.stop());

const call = (token: string, method: string, params: Record<string, unknown> = {}) =>
  botCall(server.url, token, method, params);

describe("bots for their owners", () => {
  test("create shows the token once; list, patch, reissue; public card", async () => {
    const created = await owner.post("/api/bots", { username: "Owned_bot", name: "Owned" });
    expect(created.status).toBe(200);
    const { bot, token } = created.body.data;
    expect(token).toMatch(/^\d+:[A-Za-z0-9_-]{30,}$/);
    expect(bot).toMatchObject({
      username: "Owned_bot",
      name: "Owned",
      enabled: true,
      privacy: "commands",
      description: "",
      commands: [],
    });
    expect(bot.startLink).toEndWith("/dashboard/messages?user=Owned_bot");
    // each library's server setting: the instance root, and <root>/bot for python-telegram-bot
    expect(bot.apiRoot).toBe(server.url);
    expect(bot.libraries).toEqual({
      grammy: server.url,
      telegraf: server.url,
      "node-telegram-bot-api": server.url,
      "python-telegram-bot": `${server.url}/bot`,
    });
    const list = await owner.get("/api/bots");
    expect(list.body.data.bots.map((b: any) => b.username)).toEqual(["Owned_bot"]);
    expect(JSON.stringify(list.body)).not.toContain(token.split(":")[1]);
    expect((await outsider.get("/api/bots")).body.data.bots).toEqual([]);

    expect(
      (await call(token, "setMyCommands", { commands: [{ command: "start", description: "Begin" }] })).status,
    ).toBe(200);
    const patched = await owner.patch("/api/bots/owned_bot", {
      privacy: "all",
      description: "I help",
      shortDescription: "Helper",
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.bot).toMatchObject({
      privacy: "all",
      description: "I help",
      shortDescription: "Helper",
      commands: [{ command: "start", description: "Begin" }],
    });
    expect((await call(token, "getMe")).body.result.can_read_all_group_messages).toBe(true);
    const card = await person.get("/api/social/bots/Owned_bot");
    expect(card.body.data.bot).toMatchObject({
      username: "Owned_bot",
      isBot: true,
      description: "I help",
      shortDescription: "Helper",
      commands: [{ command: "start", description: "Begin" }],
    });

    const reissued = await owner.post("/api/bots/Owned_bot/token");
    expect(reissued.status).toBe(200);
    const fresh = reissued.body.data.token;
    expect(fresh).not.toBe(token);
    expect(fresh.split(":")[0]).toBe(token.split(":")[0]);
    expect(await call(token, "getMe")).toMatchObject({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    expect((await call(fresh, "getMe")).status).toBe(200);

    expect((await owner.patch("/api/bots/Owned_bot", { enabled: false })).body.data.bot.enabled).toBe(false);
    expect(await call(fresh, "getMe")).toMatchObject({
      status: 403,
      body: { ok: false, error_code: 403, description: "Forbidden: bot was disabled by its owner" },
    });
    expect((await owner.patch("/api/bots/Owned_bot", { enabled: true })).body.data.bot.enabled).toBe(true);
    expect((await call(fresh, "getMe")).status).toBe(200);
  });

  test("the owner edits the commands; the bot sees them through getMyCommands; the Bot API's limits apply", async () => {
    const { token } = (await owner.post("/api/bots", { username: "cmds_bot", name: "Cmds" })).body.data;
    const list = [
      { command: "/start", description: "Begin" },
      { command: "help", description: "What I do" },
    ];
    const patched = await owner.patch("/api/bots/cmds_bot", { commands: list });
    expect(patched.status).toBe(200);
    // a leading slash is dropped, as setMyCommands does
    const saved = [
      { command: "start", description: "Begin" },
      { command: "help", description: "What I do" },
    ];
    expect(patched.body.data.bot.commands).toEqual(saved);
    expect((await call(token, "getMyCommands")).body.result).toEqual(saved);
    expect((await person.get("/api/social/bots/cmds_bot")).body.data.bot.commands).toEqual(saved);

    // the same refusals as setMyCommands, each naming the field it is about
    const refused = async (commands: unknown[]) => {
      const owned = await owner.patch("/api/bots/cmds_bot", { commands });
      const viaBot = await call(token, "setMyCommands", { commands });
      expect(owned.status).toBe(400);
      expect(viaBot.status).toBe(400);
      const [field, [reason]] = Object.entries(owned.body.error.details.fieldErrors as Record<string, string[]>)[0]!;
      expect(viaBot.body.description).toBe(`Bad Request: ${reason}`);
      return field;
    };
    expect(
      await refused([
        { command: "ok", description: "fine" },
        { command: "Bad-Name", description: "x" },
      ]),
    ).toBe("commands.1.command");
    expect(await refused([{ command: "c".repeat(33), description: "x" }])).toBe("commands.0.command");
    expect(await refused([{ command: "ok", description: "" }])).toBe("commands.0.description");
    expect(await refused([{ command: "ok", description: "d".repeat(257) }])).toBe("commands.0.description");
    expect(await refused(Array.from({ length: 101 }, (_, i) => ({ command: `c${i}`, description: "x" })))).toBe(
      "commands",
    );
    // nothing was changed by a refused list; an empty one clears them
    expect((await call(token, "getMyCommands")).body.result).toEqual(saved);
    expect((await owner.patch("/api/bots/cmds_bot", { commands: [] })).body.data.bot.commands).toEqual([]);
    expect((await call(token, "getMyCommands")).body.result).toEqual([]);
    expect((await outsider.patch("/api/bots/cmds_bot", { commands: list })).status).toBe(404);
  });

  test("bad input and other people's bots", async () => {
    expect((await owner.post("/api/bots", { username: "nobotsuffix", name: "X" })).body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { username: ["a bot username must end with _bot"] } },
    });
    expect(
      (await owner.post("/api/bots", { username: "bad-name_bot", name: "X" })).body.error.details.fieldErrors,
    ).toEqual({ username: ["must be 3 to 32 characters of letters, digits and _"] });
    const missing = await owner.post("/api/bots", { username: "fine_bot" });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.fieldErrors.name).toBeDefined();
    expect(
      (await owner.post("/api/bots", { username: "fine_bot", name: "   " })).body.error.details.fieldErrors,
    ).toEqual({ name: ["must be 1 to 64 characters"] });
    await owner.post("/api/bots", { username: "taken_bot", name: "T" });
    expect(
      (await outsider.post("/api/bots", { username: "Taken_bot", name: "T" })).body.error.details.fieldErrors,
    ).toEqual({ username: ["is taken"] });
    expect((await outsider.post("/api/bots/taken_bot/token")).status).toBe(404);
    expect((await outsider.patch("/api/bots/taken_bot", { enabled: false })).status).toBe(404);
    expect((await owner.patch("/api/bots/taken_bot", { privacy: "some" })).status).toBe(422);
    expect((await owner.patch("/api/bots/taken_bot", { description: "d".repeat(513) })).status).toBe(422);
    expect((await owner.patch("/api/bots/taken_bot", { enabled: "yes" })).status).toBe(422);
    expect((await person.get("/api/social/bots/nobody_bot")).status).toBe(404);
    expect(
      (await new (owner.constructor as any)(server.url).post("/api/bots", { username: "anon_bot", name: "A" })).status,
    ).toBe(401);
  });
});

describe("button presses (person side)", () => {
  let token: string;
  let cid: string;
  let messageId: string;
  let seq: number;

  beforeAll(async () => {
    token = await createBotViaApi(owner, "press_bot");
    cid = await openChat(person, "press_bot");
    const sent = await call(token, "sendMessage", {
      chat_id: personUser.id,
      text: "choose",
      reply_markup: {
        inline_keyboard: [
          [
            { text: "A", callback_data: "a" },
            { text: "App", web_app: { url: "https://app.example.com/start" } },
          ],
        ],
      },
    });
    seq = sent.body.result.message_id;
    const hist = await person.get(`/api/social/messages/${cid}`);
    messageId = hist.body.data.messages.find((m: any) => m.messageId === seq).id;
    await call(token, "getUpdates", { offset: -1 });
  });

  test("press → callback_query; answer once; the id expires after a minute", async () => {
    const press = person.post(`/api/social/messages/${cid}/${messageId}/callback`, { data: "a" });
    const update = await waitFor(
      async () => (await call(token, "getUpdates")).body.result.find((u: any) => u.callback_query),
      5000,
      "callback_query",
    );
    const q = update.callback_query;
    expect(q).toMatchObject({
      from: { id: botApiUserId(personUser.id), is_bot: false },
      data: "a",
      message: { message_id: seq, text: "choose" },
    });
    expect(typeof q.id).toBe("string");
    expect(typeof q.chat_instance).toBe("string");
    expect(await call(token, "answerCallbackQuery", { callback_query_id: q.id, text: "t".repeat(201) })).toMatchObject({
      status: 400,
      body: { description: "Bad Request: text is too long (maximum 200)" },
    });
    expect(await call(token, "answerCallbackQuery", { callback_query_id: q.id, url: "ftp://x" })).toMatchObject({
      status: 400,
      body: { description: "Bad Request: URL_INVALID" },
    });
    expect(
      (await call(token, "answerCallbackQuery", { callback_query_id: q.id, text: "ok", show_alert: "true" })).body,
    ).toEqual({ ok: true, result: true });
    expect((await press).body.data.answer).toEqual({ text: "ok", showAlert: true, url: null });
    const stale = {
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
      },
    };
    expect(await call(token, "answerCallbackQuery", { callback_query_id: q.id })).toMatchObject(stale);
    expect(await call(token, "answerCallbackQuery", { callback_query_id: "made-up" })).toMatchObject(stale);
    expect(await call(token, "answerCallbackQuery", {})).toMatchObject({
      status: 400,
      body: { description: "Bad Request: callback_query_id is empty" },
    });

    const late = person.post(`/api/social/messages/${cid}/${messageId}/callback`, { data: "a" });
    const second = await waitFor(
      async () =>
        (await call(token, "getUpdates", { offset: update.update_id + 1 })).body.result.find(
          (u: any) => u.callback_query,
        ),
      5000,
      "second press",
    );
    server.clock.advance(61_000);
    expect(await call(token, "answerCallbackQuery", { callback_query_id: second.callback_query.id })).toMatchObject(
      stale,
    );
    // nobody answered in time: the person's press ends with no answer
    expect((await late).body.data).toEqual({ answer: null });
  }, 15_000);

  test("press bad input", async () => {
    expect(
      (await person.post(`/api/social/messages/${cid}/${messageId}/callback`, { data: "zzz" })).body.error,
    ).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { data: ["is not the callback data of a button on this message"] } },
    });
    expect((await person.post(`/api/social/messages/${cid}/${messageId}/callback`, {})).status).toBe(422);
    expect(
      (await person.post(`/api/social/messages/${cid}/${messageId}/callback`, { data: "d".repeat(65) })).status,
    ).toBe(422);
    expect((await outsider.post(`/api/social/messages/${cid}/${messageId}/callback`, { data: "a" })).status).toBe(404);
    const own = await person.post(`/api/social/messages/${cid}`, { content: "mine" });
    expect(
      (await person.post(`/api/social/messages/${cid}/${own.body.data.message.id}/callback`, { data: "a" })).status,
    ).toBe(404);
    expect((await person.post(`/api/social/messages/${cid}/999999/callback`, { data: "a" })).status).toBe(404);
  });

  test("mini-app launch data is signed so the bot can verify it", async () => {
    const res = await person.post(`/api/social/messages/${cid}/${messageId}/web-app`, {
      url: "https://app.example.com/start",
    });
    expect(res.status).toBe(200);
    const launch = new URL(res.body.data.url);
    expect(launch.origin + launch.pathname).toBe("https://app.example.com/start");
    const fragment = new URLSearchParams(launch.hash.slice(1));
    const initData = fragment.get("tgWebAppData")!;
    const fields = verifyWebAppData(token, initData);
    expect(fields).not.toBeNull();
    expect(JSON.parse(fields!.user!)).toMatchObject({ id: botApiUserId(personUser.id), username: personUser.username });
    // the spec's steps by hand: key = HMAC("WebAppData", sha256(secret)), hash = HMAC(key, data-check-string)
    const { createHash, createHmac } = await import("node:crypto");
    const params = new URLSearchParams(initData);
    const hash = params.get("hash");
    params.delete("hash");
    const check = [...params]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join("\n");
    const key = createHmac("sha256", "WebAppData")
      .update(createHash("sha256").update(token.split(":")[1]!).digest())
      .digest();
    expect(createHmac("sha256", key).update(check).digest("hex")).toBe(hash!);
    expect(verifyWebAppData(token, initData.replace("auth_date=", "auth_date=1"))).toBeNull();
    expect(verifyWebAppData(`${token}x`, initData)).toBeNull();
    expect(
      (await person.post(`/api/social/messages/${cid}/${messageId}/web-app`, { url: "https://evil.example.com/" })).body
        .error.details.fieldErrors,
    ).toEqual({ url: ["is not the address of a mini-app button on this message"] });
  });
});
