/**
 * Person → bot delivery benchmark (not a test): the time from a person's send request
 * (`POST /api/social/messages/{cid}` in their chat with a bot) to the response of the bot's
 * parked `getUpdates` carrying that message, next to a bare long-poll reference measured in the
 * same run: a bare `Bun.serve` whose `POST /send` hands its JSON body to the request parked on
 * `GET /poll`. Sends go one at a time, in blocks alternating between the two servers.
 *
 *   bun scripts/bench-delivery.ts [--sends 1000] [--block 100] [--park-ms 3]
 *
 * Each send: the poll is started, the client waits --park-ms for it to park, then times the
 * send request until the poll's response has arrived (both measured from the send's start).
 * Both servers run in child processes on loopback; the real one is `startServer` on a fresh
 * temporary data dir with rate limits lifted, logging as `socialctl serve` does (into
 * .tmp/bench-delivery-server.log). Bounded: ≤ 20,000 sends, a 10 s deadline per send.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, LIFTED_LIMITS, serveChild, spawnChild, type ChildServer } from "./bench-lib";

const CHILD_FLAG = "--bench-delivery-child";
const TMP = join(import.meta.dir, "..", ".tmp");
const SERVER_LOG = join(TMP, "bench-delivery-server.log");

interface Fixtures {
  url: string;
  cookie: string;
  csrf: string;
  /** the person's chat with the bot */
  conversationId: string;
  botToken: string;
}

/* ---------------------------------------------------------------- the real server (child) */

async function runChild(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { makeUser } = await import("../src/testing/fixtures");
  const { TestClient } = await import("../src/testing/client");
  const { createBot } = await import("../src/domain/bots/service");
  const server = await startServer({ dataDir: process.env.BENCH_DATA_DIR!, overrides: LIFTED_LIMITS });
  const person = await makeUser(server.app, { username: "delivery_person" });
  const bot = await createBot(server.app, { ownerId: person.id, username: "delivery_bot", name: "Delivery" });
  const client = new TestClient(server.url);
  if ((await client.login(person.email!, person.password)).status !== 200) throw new Error("login failed");
  const chat = await client.post(`/api/social/users/${bot.user.username}/message`, {});
  if (chat.status !== 200) throw new Error(`opening the bot chat failed: ${JSON.stringify(chat.body)}`);
  Bun.gc(true);
  serveChild(
    {
      url: server.url,
      cookie: client.cookieHeader(),
      csrf: client.csrf!,
      conversationId: chat.body.data.conversationId,
      botToken: bot.token,
    } satisfies Fixtures,
    () => server.stop(),
  );
}

/** The bare reference: one parked poll at a time, answered with the next send's body. */
const LONG_POLL_SOURCE = `
let parked = null;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/poll") return new Promise((resolve) => (parked = resolve));
    const body = await req.json();
    parked?.(Response.json({ ok: true, result: [body] }));
    parked = null;
    return Response.json({ success: true });
  },
});
process.send({ url: "http://127.0.0.1:" + server.port });
process.on("message", () => { server.stop(true); process.exit(0); });
`;

/* ---------------------------------------------------------------- the client (parent) */

interface Target {
  name: string;
  /** starts the parked poll; resolves with the text of its response */
  poll(): Promise<string>;
  send(n: number): Promise<Response>;
}

function realTarget(f: Fixtures): Target {
  let offset = 0;
  return {
    name: "person → bot (POST message → parked getUpdates)",
    async poll() {
      const res = await fetch(`${f.url}/bot${f.botToken}/getUpdates?timeout=10&offset=${offset}`);
      const body = (await res.json()) as { ok: boolean; result: Array<{ update_id: number }> };
      if (!body.ok) throw new Error(`getUpdates failed: ${JSON.stringify(body)}`);
      if (body.result.length) offset = body.result.at(-1)!.update_id + 1;
      return JSON.stringify(body.result);
    },
    send: (n) =>
      fetch(`${f.url}/api/social/messages/${f.conversationId}`, {
        method: "POST",
        headers: { cookie: f.cookie, "x-csrf-token": f.csrf, "content-type": "application/json" },
        body: JSON.stringify({ content: `delivery ${n}`, clientMessageId: `delivery-${n}` }),
      }),
  };
}

function bareTarget(url: string): Target {
  return {
    name: "bare long-poll reference (Bun.serve hand-off)",
    poll: () => fetch(`${url}/poll`).then((r) => r.text()),
    send: (n) =>
      fetch(`${url}/send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: `delivery ${n}`, clientMessageId: `delivery-${n}` }),
      }),
  };
}

const withDeadline = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, Bun.sleep(ms).then(() => Promise.reject(new Error(`${what} took more than ${ms} ms`)))]);

/** The poll's text and when its response arrived (which may be before the send's own answer). */
const timedPoll = (t: Target) => t.poll().then((text) => ({ text, at: performance.now() }));

/** One send: park the poll, time send start → arrival of the poll response carrying message N. */
async function deliverOnce(t: Target, n: number, parkMs: number): Promise<number> {
  let polled = timedPoll(t);
  await Bun.sleep(parkMs);
  const t0 = performance.now();
  const sent = await withDeadline(t.send(n), 10_000, "send");
  if (!sent.ok) throw new Error(`${t.name}: send answered ${sent.status}: ${await sent.text()}`);
  let got = await withDeadline(polled, 10_000, "poll");
  while (!got.text.includes(`delivery ${n}"`)) {
    // an earlier update came first (the chat's /start): poll again for this one, bounded
    if (performance.now() - t0 > 10_000) throw new Error(`${t.name}: message ${n} never delivered`);
    polled = timedPoll(t);
    got = await withDeadline(polled, 10_000, "poll");
  }
  return got.at - t0;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const sends = Math.min(20_000, Math.max(10, Number(arg("sends", "1000"))));
  const block = Math.max(1, Number(arg("block", "100")));
  const parkMs = Math.max(0, Math.min(100, Number(arg("park-ms", "3"))));
  mkdirSync(TMP, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-delivery-"));
  const refDir = mkdtempSync(join(tmpdir(), "socialctl-bench-longpoll-"));
  writeFileSync(join(refDir, "long-poll.ts"), LONG_POLL_SOURCE);
  let real: ChildServer<Fixtures> | null = null;
  let bare: ChildServer<{ url: string }> | null = null;
  try {
    real = await spawnChild<Fixtures>(import.meta.path, CHILD_FLAG, {
      env: { BENCH_DATA_DIR: dataDir },
      stderrFile: SERVER_LOG,
    });
    bare = await spawnChild<{ url: string }>(join(refDir, "long-poll.ts"), "--bare-long-poll");
    const targets = [bareTarget(bare.ready.url), realTarget(real.ready)];
    const times: number[][] = [[], []];
    // warm-up: a few of each, not counted (the first request of a process compiles its route)
    for (const [i, t] of targets.entries()) for (let n = 0; n < 20; n++) await deliverOnce(t, -1 - n - i * 100, parkMs);
    const started = performance.now();
    for (let done = 0; done < sends; done += block) {
      for (const [i, t] of targets.entries())
        for (let n = done; n < Math.min(sends, done + block); n++) times[i]!.push(await deliverOnce(t, n, parkMs));
    }
    const load = Bun.spawnSync(["uptime"])
      .stdout.toString()
      .trim()
      .replace(/.*load average: /, "");
    console.log(
      `\n${sends} sends each, one at a time, alternating blocks of ${block}; ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${load}\n`,
    );
    console.log("| path | p50 ms | p90 ms | p99 ms | max ms | × reference p99 |");
    console.log("|---|---:|---:|---:|---:|---:|");
    const refP99 = percentile(
      [...times[0]!].sort((a, b) => a - b),
      99,
    );
    for (const [i, t] of targets.entries()) {
      const s = [...times[i]!].sort((a, b) => a - b);
      console.log(
        `| ${t.name} | ${percentile(s, 50).toFixed(2)} | ${percentile(s, 90).toFixed(2)} | ${percentile(s, 99).toFixed(2)} | ${s.at(-1)!.toFixed(2)} | ${(percentile(s, 99) / refP99).toFixed(2)} |`,
      );
    }
  } finally {
    await real?.stop();
    await bare?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(refDir, { recursive: true, force: true });
  }
}

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
