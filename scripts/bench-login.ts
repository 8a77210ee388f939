/**
 * Shows that password hashing does not stall the server: the p99 latency of a cheap request
 * (GET /healthz) measured alone, then while a burst of logins (bcrypt verifications) runs.
 *
 *   npx bun scripts/bench-login.ts [--seconds 5] [--login-concurrency 16]
 *
 * Uses `wrk` for the cheap requests (apt-get install wrk); without it, falls back to a
 * simpler sequential probe in this process. Not a test: it prints numbers for a person.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../src/main";
import { silentLogger } from "../src/lib/log";
import { makeUser } from "../src/testing/fixtures";
import { TestClient } from "../src/testing/client";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, "login-concurrency": { type: "string", default: "16" } } });
const seconds = Number(values.seconds);
const loginConcurrency = Number(values["login-concurrency"]);

const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-"));
const server = await startServer({
  dataDir,
  log: silentLogger,
  overrides: { port: 0, host: "127.0.0.1", "limits.clientRps": 1_000_000, "limits.loginPer10Min": 1_000_000 },
});
const target = `${server.url}/healthz`;
const wrk = Bun.which("wrk");
if (!wrk) console.log("wrk not found; install it for a proper load test: apt-get install wrk\nfalling back to a sequential probe.\n");

/** p99 of GET /healthz in ms over SECONDS. */
async function cheapP99(): Promise<number> {
  if (wrk) {
    const p = Bun.spawn([wrk, "-t2", "-c16", `-d${seconds}s`, "--latency", target], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    const m = out.match(/^\s*99%\s+([\d.]+)(us|ms|s)\b/m);
    if (!m) throw new Error(`could not read wrk's output:\n${out}`);
    return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[m[2] as "us" | "ms" | "s"];
  }
  const samples: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    await (await fetch(target)).arrayBuffer();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!;
}

/** Logs in repeatedly from CONCURRENCY clients until STOP is set; returns the count. */
async function loginBurst(stop: { done: boolean }): Promise<number> {
  const user = await makeUser(server.app);
  let count = 0;
  await Promise.all(
    Array.from({ length: loginConcurrency }, async () => {
      const c = new TestClient(server.url);
      while (!stop.done) {
        const res = await c.login(user.email!, user.password);
        if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
        count++;
      }
    }),
  );
  return count;
}

try {
  const alone = await cheapP99();
  const stop = { done: false };
  const burst = loginBurst(stop);
  const during = await cheapP99();
  stop.done = true;
  const logins = await burst;
  console.log(`GET /healthz p99 alone:               ${alone.toFixed(2)} ms`);
  console.log(`GET /healthz p99 during login burst:  ${during.toFixed(2)} ms  (${logins} logins in ~${seconds}s, ${loginConcurrency} at a time)`);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
