/**
 * Shows that password hashing does not stall the server: the p99 latency of a cheap request
 * (GET /healthz) measured alone, then while a burst of logins (bcrypt verifications) runs.
 * Both are also given as a ratio to the p99 of a bare `Bun.serve` measured in the same run,
 * because the machine is small and noisy (see bench-lib.ts).
 *
 *   npx bun scripts/bench-login.ts [--seconds 5] [--connections 16] [--login-connections 16]
 *
 * Needs `wrk` (apt-get install -y wrk). The server runs in a child process, so the load
 * generators (two wrk processes: cheap requests and logins) never share its event loop.
 * Not a test: it prints numbers for a person.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  arg,
  LIFTED_LIMITS,
  requireWrk,
  runWrk,
  serveChild,
  spawnChild,
  startBaseline,
  type WrkResult,
} from "./bench-lib";

const CHILD_FLAG = "--bench-login-child";

interface Fixtures {
  url: string;
  email: string;
  password: string;
  csrf: string;
}

/** In the child: a server on a fresh data dir with one account, and a CSRF token for the logins. */
async function runChild(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { silentLogger } = await import("../src/lib/log");
  const { makeUser } = await import("../src/testing/fixtures");
  const server = await startServer({
    dataDir: process.env.BENCH_DATA_DIR!,
    log: silentLogger,
    overrides: LIFTED_LIMITS,
  });
  const user = await makeUser(server.app);
  const csrf = ((await (await fetch(`${server.url}/api/auth/csrf`)).json()) as { data: { csrfToken: string } }).data
    .csrfToken;
  serveChild({ url: server.url, email: user.email!, password: user.password, csrf } satisfies Fixtures, () =>
    server.stop(),
  );
}

async function main(): Promise<void> {
  const wrk = requireWrk();
  const seconds = Number(arg("seconds", "5"));
  const cheap = { seconds, threads: 1, connections: Number(arg("connections", "16")) };
  const burst = { seconds: seconds + 2, threads: 1, connections: Number(arg("login-connections", "16")) };
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-login-"));
  const baseline = await startBaseline();
  let server: Awaited<ReturnType<typeof spawnChild<Fixtures>>> | null = null;
  try {
    server = await spawnChild<Fixtures>(import.meta.path, CHILD_FLAG, { env: { BENCH_DATA_DIR: dataDir } });
    const f = server.ready;
    const login = {
      url: `${f.url}/api/auth/login`,
      method: "POST" as const,
      headers: {
        "content-type": "application/json",
        cookie: `csrf_token=${encodeURIComponent(f.csrf)}`,
        "x-csrf-token": f.csrf,
      },
      body: JSON.stringify({ email: f.email, password: f.password }),
    };
    const probe = await fetch(login.url, { method: "POST", headers: login.headers, body: login.body });
    if (probe.status !== 200) throw new Error(`login probe answered ${probe.status}: ${await probe.text()}`);

    const base = await runWrk(wrk, { url: `${baseline.ready.url}/` }, cheap);
    const alone = await runWrk(wrk, { url: `${f.url}/healthz` }, cheap);
    // the login burst starts first and ends last, so the whole cheap run falls inside it
    const logins = runWrk(wrk, login, burst);
    await Bun.sleep(1000);
    const during = await runWrk(wrk, { url: `${f.url}/healthz` }, cheap);
    const burstResult = await logins;

    const line = (name: string, r: WrkResult) =>
      `| ${name} | ${Math.round(r.rps).toLocaleString("en-US")} | ${r.p99Ms.toFixed(2)} | ${(r.p99Ms / base.p99Ms).toFixed(2)} | ${r.non2xx + r.socketErrors} |`;
    console.log(
      [
        `wrk: ${cheap.connections} connections for the cheap request, ${burst.connections} logging in, ${seconds} s each`,
        "",
        "| request | req/s | p99 ms | p99 × baseline | failures |",
        "|---|---:|---:|---:|---:|",
        line("bare Bun.serve (baseline)", base),
        line("GET /healthz alone", alone),
        line("GET /healthz during the login burst", during),
        line("POST /api/auth/login (the burst)", burstResult),
        "",
        `p99 of GET /healthz during the burst ÷ alone: ${(during.p99Ms / alone.p99Ms).toFixed(2)}`,
      ].join("\n"),
    );
  } finally {
    await server?.stop();
    await baseline.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
