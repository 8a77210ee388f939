import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bot } from "grammy";
import { startServer, type RunningServer } from "../main";
import { silentLogger } from "../lib/log";
import { signedInClient } from "../testing/fixtures";
import { botCall, createBotViaApi, openChat, waitFor, waitForLongPoll } from "../testing/botapi";

/**
 * Durability across a restart (stop and start a server on the same data dir), and the
 * per-token call limit, which the second server sets low.
 */
const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bot-restart-"));
const base = {
  port: 0,
  host: "127.0.0.1",
  registration: "open",
  "limits.clientRps": 1_000_000,
  "limits.loginPer10Min": 1_000_000,
  "bot.allowPrivateWebhooks": true,
} as const;
let running: RunningServer | null = null;

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("restart and limits", () => {
  test("queued updates survive a restart in polling and webhook mode; 429 with retry_after", async () => {
    running = await startServer({
      dataDir,
      log: silentLogger,
      overrides: { ...base, "limits.botCallsPerMinute": 1_000_000 },
    });
    const owner = (await signedInClient(running)).client;
    const person = (await signedInClient(running)).client;
    const pollToken = await createBotViaApi(owner, "durable_poll_bot");
    const hookToken = await createBotViaApi(owner, "durable_hook_bot");
    // the webhook receiver is down while the updates are queued
    await botCall(running.url, hookToken, "setWebhook", { url: "http://127.0.0.1:9/unreachable" });
    const pollChat = await openChat(person, "durable_poll_bot");
    const hookChat = await openChat(person, "durable_hook_bot");
    await person.post(`/api/social/messages/${pollChat}`, { content: "kept 1" });
    await person.post(`/api/social/messages/${pollChat}`, { content: "kept 2" });
    await person.post(`/api/social/messages/${hookChat}`, { content: "kept for the webhook" });
    const acked = (await botCall(running.url, pollToken, "getUpdates")).body.result;
    await botCall(running.url, pollToken, "getUpdates", { offset: acked[0].update_id + 1 });
    // a pending long poll does not hold the shutdown up: it answers at once
    // a press queued before the restart stays answerable after it
    const withButton = await botCall(running.url, pollToken, "sendMessage", {
      chat_id: (await botCall(running.url, pollToken, "getUpdates")).body.result[0].message.chat.id,
      text: "press",
      reply_markup: { inline_keyboard: [[{ text: "P", callback_data: "p" }]] },
    });
    const pressed = person.post(`/api/social/messages/${pollChat}/${withButton.body.result.message_id}/callback`, {
      data: "p",
    });
    await waitFor(
      async () => (await botCall(running!.url, pollToken, "getUpdates")).body.result.some((u: any) => u.callback_query),
      5000,
      "callback_query",
    );
    const otherToken = await createBotViaApi(owner, "waiting_bot");
    const waiting = botCall(running.url, otherToken, "getUpdates", { timeout: 20 });
    await waitForLongPoll(running.app, otherToken);
    const stopStarted = Date.now();
    await running.stop();
    expect(Date.now() - stopStarted).toBeLessThan(3000);
    expect((await waiting).body).toEqual({ ok: true, result: [] });
    expect((await pressed).body.data).toEqual({ answer: null });

    // the 429 below is answered at once: its hold has a test of its own (updates.test.ts)
    running = await startServer({
      dataDir,
      log: silentLogger,
      overrides: { ...base, "limits.botCallsPerMinute": 8, "limits.botRefusalHoldMs": 0 },
    });
    const url = running.url;
    const bot = new Bot(pollToken, { client: { apiRoot: url } });
    const queued = await bot.api.getUpdates();
    expect(queued.map((u) => u.message?.text ?? u.callback_query?.data)).toEqual(["kept 2", "p"]);
    expect(await bot.api.answerCallbackQuery(queued[1]!.callback_query!.id, { text: "late but fine" })).toBe(true);

    const received: any[] = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        received.push(await req.json());
        return new Response("ok");
      },
    });
    try {
      expect((await botCall(url, hookToken, "setWebhook", { url: `http://127.0.0.1:${receiver.port}/` })).status).toBe(
        200,
      );
      await waitFor(() => received.length === 1, 8000, "the queued update delivered after restart");
      expect(received[0].message.text).toBe("kept for the webhook");
    } finally {
      receiver.stop(true);
    }

    // the poll bot has made 2 calls on this server; the limit is 8 per minute
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof botCall>> | null = null;
    for (let i = 0; i < 10; i++) {
      const r = await botCall(url, pollToken, "getMe");
      statuses.push(r.status);
      if (r.status === 429) {
        limited = r;
        break;
      }
    }
    expect(statuses.filter((s) => s === 200).length).toBe(6);
    const retryAfter = limited!.body.parameters?.retry_after as number;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited!.body).toEqual({
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      parameters: { retry_after: retryAfter },
    });
    expect(Number(limited!.headers.get("retry-after"))).toBe(retryAfter);
    // the limit is per token: the other bot is unaffected
    expect((await botCall(url, hookToken, "getMe")).status).toBe(200);
  }, 20_000);
});
