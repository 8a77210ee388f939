import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../../src/testing/server";
import { signedInClient } from "../../src/testing/fixtures";
import { runCli } from "../../src/testing/cli";
import { SseClient, WsClient } from "../../src/testing/realtime";
import { botCall, waitForLongPoll } from "../../src/testing/botapi";
import { createBot } from "../../src/domain/bots/service";

/**
 * An operator who revokes something from the CLI can trust it is gone when the command
 * returns: the running server (a real one, on a loopback port, over the same data dir) has
 * applied the change, ended the open streams and parked long polls of what was revoked, and
 * delivered the live events the command caused, before `socialctl` exits.
 */

// each step spawns a CLI process; a busy machine makes them slow
setDefaultTimeout(60_000);

let server: TestServer;
const cli = (...args: string[]) => runCli(["--data-dir", server.dataDir, ...args]);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** A getUpdates long poll of TOKEN, parked on the server before this returns; `answer` settles when it is answered. */
async function parkedPoll(token: string) {
  const answer = botCall(server.url, token, "getUpdates", { timeout: 25 }).then((r) => ({ ...r, at: Date.now() }));
  await waitForLongPoll(server.app, token);
  return { answer };
}

describe("revocations from the CLI take effect before the command exits", () => {
  test("user ban-devices: the open SSE stream has ended and the next request is DEVICE_BANNED", async () => {
    const { user, client } = await signedInClient(server);
    const sse = await SseClient.open(server.url, client);
    expect(sse.status).toBe(200);
    const r = await cli("user", "ban-devices", user.username);
    expect(r.code).toBe(0);
    await sse.waitEnded(2_000);
    const me = await client.get("/api/auth/me");
    expect({ status: me.status, code: me.body.error?.code }).toEqual({ status: 403, code: "DEVICE_BANNED" });
  });

  test("user disable: SSE and WebSocket streams have ended; the session answers ACCOUNT_DISABLED", async () => {
    const { user, client } = await signedInClient(server);
    const sse = await SseClient.open(server.url, client);
    const ws = await WsClient.open(server.url, client);
    const r = await cli("user", "disable", user.username);
    expect(r.code).toBe(0);
    await sse.waitEnded(2_000);
    await ws.waitClosed(2_000);
    const me = await client.get("/api/auth/me");
    expect({ status: me.status, code: me.body.error?.code }).toEqual({ status: 403, code: "ACCOUNT_DISABLED" });
  });

  test("user set-password: the account's open streams have ended and its sessions are signed out", async () => {
    const { user, client } = await signedInClient(server);
    const sse = await SseClient.open(server.url, client);
    const ws = await WsClient.open(server.url, client);
    const r = await cli("user", "set-password", user.username, "--password", "a brand new password");
    expect(r.code).toBe(0);
    await sse.waitEnded(2_000);
    await ws.waitClosed(2_000);
    expect((await client.get("/api/auth/me")).status).toBe(401);
  });

  test("user block-posting: the next post is refused", async () => {
    const { user, client } = await signedInClient(server);
    expect((await client.post("/api/social/posts", { content: "before the block" })).status).toBe(200);
    expect((await cli("user", "block-posting", user.username, "--minutes", "5")).code).toBe(0);
    const res = await client.post("/api/social/posts", { content: "after the block" });
    expect({ status: res.status, code: res.body.error?.code }).toEqual({
      status: 403,
      code: "POSTING_TEMPORARILY_BLOCKED",
    });
  });

  test("bot token --reissue: the old token is refused at once (its parked long poll too), the new one works", async () => {
    const { user: owner } = await signedInClient(server);
    const made = await createBot(server.app, { ownerId: owner.id, username: "revoked_token_bot", name: "Revoked" });
    // the token is resolved and cached by the server before the reissue
    expect((await botCall(server.url, made.token, "getMe")).status).toBe(200);
    const poll = await parkedPoll(made.token);
    const r = await cli("--json", "bot", "token", "revoked_token_bot", "--reissue");
    expect(r.code).toBe(0);
    const fresh = r.json.token as string;
    const exitedAt = Date.now();
    const [old, renewed] = await Promise.all([
      botCall(server.url, made.token, "getMe"),
      botCall(server.url, fresh, "getMe"),
    ]);
    expect({ old: old.status, renewed: renewed.status }).toEqual({ old: 401, renewed: 200 });
    // the long poll parked with the old token was ended by the reissue, not left to run its 25 s
    const ended = await poll.answer;
    expect({ status: ended.status, ok: ended.body.ok }).toEqual({ status: 401, ok: false });
    expect(ended.at - exitedAt).toBeLessThan(5_000);
  });

  test("bot disable: the token is refused at once and its parked long poll ends", async () => {
    const { user: owner } = await signedInClient(server);
    const made = await createBot(server.app, { ownerId: owner.id, username: "disabled_now_bot", name: "Disabled" });
    expect((await botCall(server.url, made.token, "getMe")).status).toBe(200);
    const poll = await parkedPoll(made.token);
    expect((await cli("bot", "disable", "disabled_now_bot")).code).toBe(0);
    expect((await botCall(server.url, made.token, "getMe")).status).toBe(403);
    const ended = await poll.answer;
    expect({ status: ended.status, ok: ended.body.ok }).toEqual({ status: 403, ok: false });
  });

  test("stars grant: the person's open stream has the new balance when the command exits", async () => {
    const { user, client } = await signedInClient(server);
    const sse = await SseClient.open(server.url, client);
    const r = await cli("stars", "grant", user.username, "25");
    expect(r.code).toBe(0);
    // delivered before the command exited: only the read of the socket remains
    const frames = await sse.waitFor((f) => f.some((x) => x.event === "stars:balance"), 2_000, "stars:balance");
    expect(frames.find((x) => x.event === "stars:balance")!.data).toEqual({ balance: 25 });
    sse.close();
  });

  test("without a running server the commands work as before", async () => {
    const dir = (await import("node:fs")).mkdtempSync(`${(await import("node:os")).tmpdir()}/socialctl-norun-`);
    try {
      expect((await runCli(["--data-dir", dir, "init", "--yes"])).code).toBe(0);
      expect(
        (
          await runCli([
            "--data-dir",
            dir,
            "user",
            "create",
            "--email",
            "z@example.test",
            "--username",
            "zed",
            "--password",
            "zed password",
          ])
        ).code,
      ).toBe(0);
      const r = await runCli(["--data-dir", dir, "stars", "grant", "zed", "3"]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    } finally {
      (await import("node:fs")).rmSync(dir, { recursive: true, force: true });
    }
  });
});
