/**
 * Memory soak (not a test): a steady RATE of mixed requests (feed, profile, chat list, message
 * sends, Bot API sends and polls, SSE streams opened and closed) against the benchmark's
 * seeded server for MINUTES, printing the server's RSS every 30 s and, at the end, how fast it
 * still grew in the second half. A server without unbounded in-memory state levels off.
 *
 *   bun scripts/bench-soak.ts [--minutes 30] [--rate 500]
 *
 * The server is bench.ts's seeded child (its own process, loopback only); the load comes from
 * this process, paced by the clock (never more than RATE per second, at most 64 in flight).
 */
import { join } from "node:path";
import { arg, mb, processMemory, spawnChild } from "./bench-lib";

interface Fixtures {
  url: string;
  cookie: string;
  csrf: string;
  conversationId: string;
  botToken: string;
  botChatId: number;
}

const MAX_IN_FLIGHT = 64;
const SAMPLE_EVERY_MS = 30_000;

async function main(): Promise<void> {
  const minutes = Number(arg("minutes", "30"));
  const rate = Number(arg("rate", "500"));
  if (!(minutes > 0 && minutes <= 240) || !(rate > 0 && rate <= 5_000)) {
    console.error("--minutes must be in (0, 240] and --rate in (0, 5000]");
    process.exit(1);
  }
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-soak-"));
  console.log("seeding the benchmark server…");
  const server = await spawnChild<Fixtures>(join(import.meta.dir, "bench.ts"), "--bench-server-child", {
    env: { BENCH_DATA_DIR: dataDir, BENCH_POSTS: "1000" },
    stderrFile: "/dev/null",
  });
  const f = server.ready;
  // a cookie jar, as a browser keeps one: the server renews the session on the response after
  // the access token expires (15 min) and rotates the refresh token, so the old cookies stop working
  const jar = new Map(
    f.cookie.split("; ").map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const session = () => ({
    cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
    "user-agent": "socialctl-soak",
  });
  const keepCookies = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.slice(0, line.indexOf(";") < 0 ? undefined : line.indexOf(";"));
      jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
  };
  const bot = `${f.url}/bot${f.botToken}`;
  let n = 0;
  const requests: Array<() => Promise<unknown>> = [
    () => fetch(`${f.url}/api/social/feed`, { headers: session() }),
    () => fetch(`${f.url}/api/auth/me`, { headers: session() }),
    () => fetch(`${f.url}/api/social/messages`, { headers: session() }),
    () =>
      fetch(`${f.url}/api/social/messages/${f.conversationId}`, {
        method: "POST",
        headers: {
          ...session(),
          "content-type": "application/json",
          "x-csrf-token": jar.get("csrf_token") ?? f.csrf,
        },
        body: JSON.stringify({ content: `soak ${n}`, clientMessageId: `soak-${n}` }),
      }),
    () =>
      fetch(`${bot}/sendMessage`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chat_id: f.botChatId, text: `soak ${n}` }),
      }),
    () =>
      fetch(`${bot}/getUpdates`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ timeout: 0, offset: -1 }),
      }),
    // a stream opened, read for a moment and dropped, as a closed browser tab does
    async () => {
      const controller = new AbortController();
      const res = await fetch(`${f.url}/api/realtime/events`, { headers: session(), signal: controller.signal });
      await Bun.sleep(200);
      controller.abort();
      return res;
    },
  ];

  const samples: Array<{ minute: number; rss: number }> = [];
  const sample = (start: number) => {
    const { rss } = processMemory(server.pid);
    const minute = (performance.now() - start) / 60_000;
    samples.push({ minute, rss });
    console.log(`  ${minute.toFixed(1).padStart(5)} min  RSS ${mb(rss)} MB  (${n} requests, ${failures} failed)`);
  };
  let inFlight = 0;
  let failures = 0;
  const start = performance.now();
  const end = start + minutes * 60_000;
  let nextSample = start;
  try {
    while (performance.now() < end) {
      const now = performance.now();
      if (now >= nextSample) {
        sample(start);
        nextSample += SAMPLE_EVERY_MS;
      }
      // the requests due by now (paced from the start), never more than MAX_IN_FLIGHT at once
      const due = Math.floor(((now - start) / 1000) * rate);
      while (n < due && inFlight < MAX_IN_FLIGHT) {
        const request = requests[n % requests.length]!;
        n++;
        inFlight++;
        request()
          .then((res) => {
            if (res instanceof Response) keepCookies(res);
            if (res instanceof Response && !res.ok && res.status !== 409) failures++;
            return res instanceof Response ? res.arrayBuffer().catch(() => undefined) : undefined;
          })
          .catch(() => failures++)
          .finally(() => inFlight--);
      }
      await Bun.sleep(2);
    }
    sample(start);
    const secondHalf = samples.filter((s) => s.minute >= minutes / 2);
    const first = secondHalf[0]!;
    const last = secondHalf.at(-1)!;
    const slope = last.minute > first.minute ? (last.rss - first.rss) / (last.minute - first.minute) : 0;
    console.log(`\n${n} requests in ${minutes} min (${Math.round(n / (minutes * 60))} req/s), ${failures} failed`);
    console.log(
      `RSS ${mb(samples[0]!.rss)} MB at the start, ${mb(last.rss)} MB at the end, peak ${mb(processMemory(server.pid).peakRss)} MB`,
    );
    console.log(`growth in the second half: ${(slope / 1024 / 1024).toFixed(2)} MB/min`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
