import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeConfigValues } from "../config";
import { SECRET_FILE } from "../config/layout";
import { botCall, createBotViaApi, openChat } from "../testing/botapi";
import { startServeProcess } from "../testing/cli";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { startFailoverProxy, type FailoverProxy } from "../testing/proxy";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";

/*
 * A node that stops running (SIGSTOP; a CPU-starved one looks the same from outside, only
 * slower) while a bot's getUpdates is parked on it. Node B is a `socialctl serve` child
 * process (so it can be stopped); node A is in this process; both on one PostgreSQL and
 * Redis, behind a load balancer that probes /readyz and gives up on a request after a while,
 * as Caddy's health checks and a proxy read timeout do. The bot is a plain long-polling loop.
 */

// a server started from source and a stop of several seconds on a shared, loaded machine
setDefaultTimeout(120_000);

/** the bot's long-poll timeout, and the balancer's read timeout a little above it */
const POLL_SECONDS = 4;
const RESPONSE_TIMEOUT_MS = POLL_SECONDS * 1000 + 4000;

let redis: TestRedis;
let a: TestServer;
let b: { url: string; proc: ReturnType<typeof Bun.spawn> };
let balancer: FailoverProxy;
const dirs: string[] = [];

beforeAll(async () => {
  const [databaseUrl, r] = await Promise.all([freshPostgresDatabase(), startTestRedis()]);
  redis = r;
  const settings = {
    "database.url": databaseUrl,
    "pubsub.url": redis.url,
    "limits.clientRps": 1_000_000,
    "limits.loginPer10Min": 1_000_000,
    "limits.botCallsPerMinute": 1_000_000,
    "limits.messagesPerMinute": 1_000_000,
  };
  const [dirA, dirB] = [0, 1].map(() => mkdtempSync(join(tmpdir(), "socialctl-stalled-")));
  dirs.push(dirA!, dirB!);
  a = await startTestServer(settings, { dataDir: dirA });
  // node B: the same settings and instance secret in a data dir of its own
  storeConfigValues(dirB!, settings);
  copyFileSync(join(dirA!, SECRET_FILE), join(dirB!, SECRET_FILE));
  const { proc, listening } = await startServeProcess(dirB!);
  b = { url: listening.url, proc };
  balancer = startFailoverProxy([b.url, a.url], {
    health: { uri: "/readyz", intervalMs: 300, timeoutMs: 2000 },
    responseTimeoutMs: RESPONSE_TIMEOUT_MS,
  });
});

afterAll(async () => {
  balancer?.stop();
  if (b?.proc.exitCode === null) {
    b.proc.kill("SIGCONT");
    b.proc.kill("SIGTERM");
    await Promise.race([b.proc.exited, Bun.sleep(10_000)]);
    if (b.proc.exitCode === null) b.proc.kill("SIGKILL");
  }
  await a?.stop();
  await redis?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("a stalled node", () => {
  test("SIGSTOP of the node holding a bot's parked getUpdates: the bot is served by another node within the balancer's timeout; resumed, the node stays unready until it has run on time again", async () => {
    const owner = (await signedInClient(a)).client;
    const person = await quickPerson(a);
    const token = await createBotViaApi(owner, "stalled_poll_bot", "Stall");
    const cid = await openChat(person.client, "stalled_poll_bot");
    const send = async (content: string) =>
      expect((await person.client.post(`/api/social/messages/${cid}`, { content })).status).toBe(200);

    // a plain long-polling bot through the balancer: every text it got, in order
    const received: string[] = [];
    let offset = 0;
    let polling = true;
    const loop = (async () => {
      while (polling) {
        const res = await fetch(`${balancer.url}/bot${token}/getUpdates`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ offset, timeout: POLL_SECONDS }),
        }).catch(() => null);
        if (res?.status !== 200) {
          await Bun.sleep(200);
          continue;
        }
        const body = (await res.json()) as { result: Array<{ update_id: number; message?: { text: string } }> };
        for (const u of body.result) {
          received.push(u.message?.text ?? "");
          offset = u.update_id + 1;
        }
      }
    })();
    try {
      expect(balancer.current()).toBe(b.url);
      await send("before");
      await waitFor(() => received.includes("before"), 20_000, "the first update, through B");

      // B stops with the bot's next poll parked on it
      await Bun.sleep(500);
      b.proc.kill("SIGSTOP");
      const stoppedAt = performance.now();
      await send("while B is stopped");
      await waitFor(() => received.includes("while B is stopped"), 30_000, "the update, through A");
      // within the balancer's read timeout (the held poll is given up) and one more poll
      expect(performance.now() - stoppedAt).toBeLessThan(RESPONSE_TIMEOUT_MS + 10_000);
      expect(balancer.current()).toBe(a.url);
      expect(balancer.timeouts()).toBeGreaterThan(0);

      b.proc.kill("SIGCONT");
      // resumed, B says it ran late, so the balancer does not send it requests yet
      const late = await fetch(`${b.url}/readyz`);
      expect(late.status).toBe(503);
      const body = (await late.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe("unavailable");
      expect(body.checks.database).toBe("ok");
      expect(body.checks.eventLoop).toContain("readiness.maxEventLoopLagMs");
      // and ready again once it has run on time for a while
      await waitFor(async () => (await fetch(`${b.url}/readyz`)).status === 200, 30_000, "B ready again");
      await waitFor(() => balancer.current() === b.url, 10_000, "B back in the balancer");
      await send("after B resumed");
      await waitFor(() => received.includes("after B resumed"), 30_000, "the update after B resumed");
      // each update once, in order
      expect(received).toEqual(["before", "while B is stopped", "after B resumed"]);
    } finally {
      polling = false;
      await loop;
    }
    // nothing was left behind in the queue
    expect((await botCall(a.url, token, "getUpdates", { offset, timeout: 0 })).body.result).toEqual([]);
  });
});
