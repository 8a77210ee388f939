import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { botLogOf, BOT_LOG_ENTRIES } from "../domain/bots/log";
import { botApiUserId } from "../domain/bots/ids";
import { claimServerLock } from "../ops/server-lock";
import { botCall, botWorld, createBotViaApi, openChat, PNG_1x1, waitFor, type BotWorld } from "../testing/botapi";
import { SOCIALCTL, runCli } from "../testing/cli";
import { signedInClient } from "../testing/fixtures";
import { SseClient } from "../testing/realtime";

let world: BotWorld;
let token: string;
beforeAll(async () => {
  world = await botWorld({ "bot.allowPrivateWebhooks": true });
  token = await createBotViaApi(world.owner, "devlog_bot");
  claimServerLock(world.server);
});
afterAll(() => world.server.stop());

const ownerLog = async (after = 0) => {
  const res = await world.owner.get(`/api/bots/devlog_bot/log?after=${after}`);
  expect(res.status).toBe(200);
  return res.body.data.entries as any[];
};

describe("per-bot developer log", () => {
  test("calls with parameters, results, errors and latency; files as name and size; no token, no secret", async () => {
    const { server, person } = world;
    const cid = await openChat(person, "devlog_bot");
    expect((await botCall(server.url, token, "getMe")).status).toBe(200);
    expect((await botCall(server.url, token, "sendMessage", { chat_id: 999, text: "lost" })).status).toBe(400);
    const fd = new FormData();
    fd.set("chat_id", String(botApiUserId(world.personUser.id)));
    fd.set("photo", new File([PNG_1x1], "dot.png"));
    const sent = await fetch(`${server.url}/bot${token}/sendPhoto`, { method: "POST", body: fd });
    expect(sent.status).toBe(200);
    const hook = `https://hooks.example.test/${token}/in`;
    await botCall(server.url, token, "setWebhook", { url: hook, secret_token: "very-secret-value" });
    await botCall(server.url, token, "deleteWebhook");

    const entries = await ownerLog();
    const byMethod = (m: string) => entries.find((e) => e.kind === "call" && e.method === m);
    expect(byMethod("getMe")).toMatchObject({ ok: true, result: { username: "devlog_bot", is_bot: true } });
    expect(typeof byMethod("getMe").ms).toBe("number");
    expect(byMethod("sendMessage")).toMatchObject({
      ok: false,
      params: { chat_id: 999, text: "lost" },
      error: { code: 400, description: "Bad Request: chat not found" },
    });
    expect(byMethod("sendPhoto").params.photo).toBe(`<file dot.png, ${PNG_1x1.length} bytes>`);
    expect(byMethod("sendPhoto").result.photo.length).toBeGreaterThan(0);
    expect(byMethod("setWebhook").params.secret_token).toBe("<hidden>");
    const text = JSON.stringify(entries);
    expect(text).not.toContain(token.split(":")[1]!);
    expect(text).not.toContain("very-secret-value");
    expect(byMethod("setWebhook").params.url).toBe("https://hooks.example.test/<token>/in");
    // ids increase, oldest first
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => a - b));
    expect(cid).toBeTruthy();
  });

  test("a call's result is made small when the log is read, the same at every read", async () => {
    const { server, person } = world;
    await openChat(person, "devlog_bot");
    const last = (await ownerLog()).at(-1)!.id;
    const long = "x".repeat(600);
    const chatId = botApiUserId(world.personUser.id);
    expect((await botCall(server.url, token, "sendMessage", { chat_id: chatId, text: long })).status).toBe(200);
    const entries = await ownerLog(last);
    const sent = entries.find((e) => e.kind === "call" && e.method === "sendMessage");
    const cut = `${"x".repeat(500)}… (600 characters)`;
    expect(sent).toMatchObject({ ok: true, params: { chat_id: chatId, text: cut }, result: { text: cut } });
    expect(Object.keys(sent)).toEqual(["id", "at", "kind", "method", "params", "ok", "result", "ms"]);
    expect(Date.parse(sent.at)).toBeGreaterThan(0);
    expect(await ownerLog(last)).toEqual(entries);
  });

  test("getUpdates logs each update it hands over", async () => {
    const { server, person } = world;
    const cid = await openChat(person, "devlog_bot");
    await person.post(`/api/social/messages/${cid}`, { content: "ping for the log" });
    const last = (await ownerLog()).at(-1)!.id;
    const got = await botCall(server.url, token, "getUpdates", { timeout: 0 });
    expect(got.body.result.length).toBeGreaterThan(0);
    const after = await ownerLog(last);
    expect(after[0]).toMatchObject({ kind: "call", method: "getUpdates", ok: true });
    const updates = after.filter((e) => e.kind === "update");
    expect(updates.map((u) => u.update.updateId)).toEqual(got.body.result.map((u: any) => u.update_id));
    expect(updates.every((u) => u.method === "getUpdates" && u.update.type === "message")).toBe(true);
  });

  test("webhook deliveries are logged, failures with their cause", async () => {
    const { server, person } = world;
    let answer = 500;
    const hook = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("{}", { status: answer }) });
    try {
      expect(
        (await botCall(server.url, token, "setWebhook", { url: `http://127.0.0.1:${hook.port}/hook` })).status,
      ).toBe(200);
      const last = (await ownerLog()).at(-1)!.id;
      const cid = await openChat(person, "devlog_bot");
      await person.post(`/api/social/messages/${cid}`, { content: "to the webhook" });
      const failed = await waitFor(
        async () => (await ownerLog(last)).find((e) => e.kind === "update" && e.method === "webhook"),
        10_000,
        "a failed delivery",
      );
      expect(failed).toMatchObject({
        ok: false,
        update: { type: "message" },
        error: { description: expect.any(String) },
      });
      answer = 200;
      // the update that failed goes out again; older queued updates may go first
      const retried = await waitFor(
        async () =>
          (await ownerLog(failed.id)).find(
            (e) => e.kind === "update" && e.ok && e.update.updateId === failed.update.updateId,
          ),
        15_000,
        "the retried delivery",
      );
      expect(retried.method).toBe("webhook");
      const mine = await waitFor(
        async () =>
          (await ownerLog(last)).find(
            (e) => e.kind === "update" && e.ok && e.result.message?.text === "to the webhook",
          ),
        15_000,
        "this message delivered",
      );
      expect(mine.update.type).toBe("message");
    } finally {
      await botCall(server.url, token, "deleteWebhook");
      hook.stop(true);
    }
  });

  test("live: the stream sends the kept entries and then each new call; closing it leaves no follower", async () => {
    const { server, owner } = world;
    const last = (await ownerLog()).at(-1)!.id;
    const stream = await SseClient.open(server.url, owner, { path: `/api/bots/devlog_bot/log/stream?after=${last}` });
    expect(stream.status).toBe(200);
    await waitFor(() => botLogOf(server.app).followerCount() === 1, 3000, "the follower");
    await botCall(server.url, token, "getMyCommands");
    const live = await stream.waitFor((f) => f.some((x) => (x.data as any).method === "getMyCommands"));
    expect(live[0]!.event).toBe("entry");
    expect(live[0]!.id).toBeGreaterThan(last);
    expect((live[0]!.data as any).id).toBe(live[0]!.id);
    stream.close();
    await waitFor(() => botLogOf(server.app).followerCount() === 0, 3000, "the follower to leave");
  });

  test("bounded: only the last entries stay", async () => {
    const { server } = world;
    for (let i = 0; i < BOT_LOG_ENTRIES + 20; i++) await botCall(server.url, token, "getMe");
    const entries = await ownerLog();
    expect(entries.length).toBe(BOT_LOG_ENTRIES);
    expect(entries.every((e) => e.method === "getMe")).toBe(true);
  });

  test("only the owner: another person gets NOT_FOUND, no session UNAUTHORIZED", async () => {
    const other = (await signedInClient(world.server)).client;
    expect((await other.get("/api/bots/devlog_bot/log")).status).toBe(404);
    expect((await fetch(`${world.server.url}/api/bots/devlog_bot/log`)).status).toBe(401);
  });
});

describe("socialctl bot log", () => {
  const dir = () => world.server.dataDir;

  test("prints the kept entries (--json: {entries}); an unknown bot is one line", async () => {
    const run = await runCli(["--data-dir", dir(), "--json", "bot", "log", "devlog_bot"]);
    expect(run.code).toBe(0);
    expect(run.json.entries.length).toBeGreaterThan(0);
    const human = await runCli(["--data-dir", dir(), "bot", "log", "devlog_bot"]);
    expect(human.stdout.trim().split("\n").at(-1)).toMatch(/^\d\d:\d\d:\d\d\.\d{3}  getMe [\d.]+ ms  → \{/);
    const missing = await runCli(["--data-dir", dir(), "bot", "log", "nobody_bot"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("socialctl: bot nobody_bot not found\n");
  });

  test("--follow prints new calls as they happen", async () => {
    const last = (await ownerLog()).at(-1)!.id;
    const child = Bun.spawn(
      [...SOCIALCTL, "--data-dir", dir(), "--json", "bot", "log", "devlog_bot", "--follow", "--after", String(last)],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env, CI: "1" } },
    );
    const timer = setTimeout(() => child.kill(), 15_000);
    try {
      await waitFor(() => botLogOf(world.server.app).followerCount() === 1, 10_000, "the CLI to follow");
      await botCall(world.server.url, token, "getMyCommands");
      const reader = child.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const entry = JSON.parse(out.split("\n")[0]!);
      expect(entry).toMatchObject({ kind: "call", method: "getMyCommands", ok: true });
    } finally {
      clearTimeout(timer);
      child.kill();
      await child.exited;
    }
  });

  test("the operator endpoint wants the token derived from the data dir's secret", async () => {
    const url = `${world.server.url}/api/ops/bots/devlog_bot/log`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer guess" } })).status).toBe(401);
  });

  test("without a running server it says where the log lives", async () => {
    const { startTestServer } = await import("../testing/server");
    const idle = await startTestServer();
    try {
      const run = await runCli(["--data-dir", idle.dataDir, "bot", "log", "devlog_bot"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("no server is running on");
    } finally {
      await idle.stop();
    }
  });
});
