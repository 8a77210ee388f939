/**
 * Realtime benchmark (not a test): how many idle realtime connections one server process
 * holds, their memory cost, and the time to fan one event out to all of them.
 *
 *   bun scripts/bench-realtime.ts [--connections 10000] [--transport sse|ws|both] [--accounts N] [--cycles 10000]
 *                                 [--rounds 3] [--profile]
 *
 * Next to each transport it measures a bare reference in the same run: a plain Bun.serve
 * holding the same number of SSE streams or WebSockets and writing one frame to each (the
 * fan-out ratio is socialctl's time over the bare one). When the open-file limit is lower than
 * the connections need, the script re-runs itself under `ulimit -n` raised to the hard limit.
 *
 * The server runs in a child process on a fresh temporary data dir (loopback only), so its
 * memory is measured apart from the clients'. Afterwards it runs --cycles short connect/disconnect
 * cycles and reports that no connection or broker listener is left behind. Clients are raw TCP sockets (SSE) or Bun
 * WebSockets in this process. --profile writes a CPU profile of the server child (markdown,
 * Bun's --cpu-prof-md) into .tmp/; it covers the set-up (accounts, sessions) too, so look at the
 * realtime functions in it. Everything is bounded: connection count ≤ 18,000 (the fd limit
 * here is 20,000 per process), every wait has a deadline, and the data dir is removed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, insertAccounts, mb } from "./bench-lib";

const CHILD_FLAG = "--bench-server-child";
const MAX_CONNECTIONS = 18_000;

type ToChild = { cmd: "stats" } | { cmd: "publish"; marker: string } | { cmd: "stop" };
type FromChild =
  | { type: "ready"; url: string; cookies: string[] }
  | { type: "stats"; rss: number; heapUsed: number; connections: number; listeners: number }
  | { type: "published"; ms: number; cpuMs: number };

/* ---------------------------------------------------------------- server side (child) */

async function runChild(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { silentLogger } = await import("../src/lib/log");
  const { createSession } = await import("../src/domain/sessions/service");
  const { sessionCookies, sessionTtls } = await import("../src/http/context");
  const { realtimeHub } = await import("../src/realtime/hub");
  const accounts = Number(process.env.BENCH_ACCOUNTS);
  const dataDir = process.env.BENCH_DATA_DIR!;
  const server = await startServer({
    dataDir,
    log: silentLogger,
    // --accounts below --connections puts many streams on one session: no stream caps here
    overrides: {
      port: 0,
      host: "127.0.0.1",
      "limits.clientRps": 1_000_000,
      "limits.streamsPerSession": 1_000_000,
      "limits.streamsPerAccount": 1_000_000,
    },
  });
  const { app } = server;
  const now = app.clock.now();
  // accounts inserted directly: no password hashing, the bench needs only sessions
  const userIds = await insertAccounts(app.db, "bench", accounts, now);
  const cookies: string[] = [];
  for (const userId of userIds) {
    const { tokens } = await createSession(app.db, now, sessionTtls(app), {
      userId,
      userAgent: "bench",
      ip: "127.0.0.1",
    });
    cookies.push(
      sessionCookies(app, tokens)
        .map((c) => c.split(";")[0])
        .join("; "),
    );
  }
  const send = (m: FromChild) => process.send!(m);
  process.on("message", async (m: ToChild) => {
    if (m.cmd === "stats") {
      Bun.gc(true);
      const mem = process.memoryUsage();
      send({
        type: "stats",
        rss: mem.rss,
        heapUsed: mem.heapUsed,
        connections: realtimeHub(app).connectionCount(),
        listeners: app.events.listenerCount(),
      });
    } else if (m.cmd === "publish") {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      app.events.publish(userIds, "typing", { conversationId: m.marker, user: { id: "bench", username: "bench" } });
      const cpu = process.cpuUsage(c0);
      send({ type: "published", ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 });
    } else if (m.cmd === "stop") {
      await server.stop();
      process.exit(0);
    }
  });
  send({ type: "ready", url: server.url, cookies });
}

/* ---------------------------------------------------------------- clients (parent) */

interface BenchClient {
  received: (marker: string) => boolean;
  close(): void;
}

async function openSse(url: URL, cookie: string): Promise<BenchClient> {
  let text = "";
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: {
      data(_s, chunk) {
        // keep only a tail: enough to find the marker, bounded in memory
        text = (text + chunk.toString()).slice(-4096);
      },
    },
  });
  socket.write(
    `GET /api/realtime/events HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return { received: (marker) => text.includes(marker), close: () => socket.end() };
}

function openWs(url: URL, cookie: string): Promise<BenchClient> {
  return new Promise((resolve, reject) => {
    let last = "";
    const ws = new WebSocket(`ws://${url.host}/api/realtime/ws`, { headers: { cookie } } as never);
    ws.onmessage = (e) => (last = String(e.data).slice(0, 4096));
    ws.onopen = () => resolve({ received: (marker) => last.includes(marker), close: () => ws.close() });
    ws.onerror = () => reject(new Error("websocket failed"));
  });
}

/**
 * The bare reference: Bun.serve holding SSE streams and WebSockets and writing one frame to
 * each in a loop, no app around it. It answers the same IPC commands as the server child, so
 * the same client code measures both.
 */
const BARE_SOURCE = `
const encoder = new TextEncoder();
const streams = new Set();
const sockets = new Set();
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  fetch(req, srv) {
    if (srv.upgrade(req)) return;
    let controller;
    const stream = new ReadableStream({
      start(c) { controller = c; streams.add(c); c.enqueue(encoder.encode("retry: 3000\\n: connected\\n\\n")); },
      cancel() { streams.delete(controller); },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-store" } });
  },
  websocket: { open(ws) { sockets.add(ws); }, close(ws) { sockets.delete(ws); }, message() {} },
});
const send = (m) => process.send(m);
process.on("message", (m) => {
  if (m.cmd === "stats") {
    Bun.gc(true);
    const mem = process.memoryUsage();
    send({ type: "stats", rss: mem.rss, heapUsed: mem.heapUsed, connections: streams.size + sockets.size, listeners: 0 });
  } else if (m.cmd === "publish") {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const data = JSON.stringify({ type: "typing", data: { conversationId: m.marker, user: { id: "bench", username: "bench" } } });
    const frame = encoder.encode("event: typing\\ndata: " + data + "\\n\\n");
    for (const c of streams) c.enqueue(frame);
    for (const ws of sockets) ws.send(data);
    const cpu = process.cpuUsage(c0);
    send({ type: "published", ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 });
  } else if (m.cmd === "stop") {
    server.stop(true);
    process.exit(0);
  }
});
send({ type: "ready", url: "http://127.0.0.1:" + server.port, cookies: [""] });
`;

interface RunResult {
  connections: number;
  /** server RSS growth per held connection, KB */
  kbPerConnection: number;
  /** publish → every client had the event, ms, per round */
  fanoutMs: number[];
  /** the server's own publish loop (every frame handed to its socket), ms, per round */
  publishMs: number[];
  /** CPU time (user + system) of that loop, ms, per round: what the load on the machine disturbs least */
  publishCpuMs: number[];
}

/** Open files this process may hold; re-runs itself under a raised soft limit when NEEDED is more. */
function ensureOpenFiles(needed: number): void {
  const line = readFileSync("/proc/self/limits", "utf8").match(/^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m);
  const soft = line?.[1] === "unlimited" ? Infinity : Number(line?.[1] ?? 0);
  const hard = line?.[2] === "unlimited" ? Infinity : Number(line?.[2] ?? 0);
  if (soft >= needed) return;
  if (hard < needed || process.env.BENCH_RAISED_NOFILE) {
    console.error(`needs ${needed} open files; the limit is ${soft} (hard ${hard}): use fewer --connections`);
    process.exit(2);
  }
  const raised = Bun.spawnSync(
    [
      "bash",
      "-c",
      `ulimit -n ${hard === Infinity ? needed : hard} && exec "$@"`,
      "bash",
      process.execPath,
      ...process.argv.slice(1),
    ],
    { stdio: ["inherit", "inherit", "inherit"], env: { ...process.env, BENCH_RAISED_NOFILE: "1" } },
  );
  process.exit(raised.exitCode ?? 1);
}

/**
 * Starts SCRIPT (the server child or the bare reference), opens CONNECTIONS idle clients of
 * TRANSPORT, measures memory and ROUNDS fan-outs, and (for the server, with CYCLES > 0) checks
 * that connect/disconnect churn leaves nothing behind.
 */
async function runAgainst(
  label: string,
  argv: string[],
  rounds: number,
  env: Record<string, string>,
  transport: "sse" | "ws",
  connections: number,
  accounts: number,
  cycles: number,
): Promise<RunResult> {
  const pending = new Map<FromChild["type"], (m: FromChild) => void>();
  const child = Bun.spawn([process.execPath, ...argv], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
    ipc(message: FromChild) {
      pending.get(message.type)?.(message);
    },
  });
  const ask = <T extends FromChild["type"]>(type: T, cmd?: ToChild, timeoutMs = 120_000) =>
    new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from ${label} within ${timeoutMs} ms`)), timeoutMs);
      pending.set(type, (m) => {
        clearTimeout(timer);
        resolve(m as Extract<FromChild, { type: T }>);
      });
      if (cmd) child.send(cmd);
    });
  /** Server stats once every connection is gone (or 30 s passed). */
  const drained = async () => {
    const deadline = Date.now() + 30_000;
    let stats;
    do {
      await Bun.sleep(200);
      stats = await ask("stats", { cmd: "stats" });
    } while (stats.connections > 0 && Date.now() < deadline);
    return stats;
  };
  try {
    const ready = await ask("ready");
    const url = new URL(ready.url);
    const before = await ask("stats", { cmd: "stats" });
    console.log(`${label}: idle rss ${mb(before.rss)} MB`);
    const open = (i: number) => {
      const cookie = ready.cookies[i % ready.cookies.length]!;
      return transport === "sse" ? openSse(url, cookie) : openWs(url, cookie);
    };

    const clients: BenchClient[] = [];
    const t0 = performance.now();
    const BATCH = 500;
    for (let i = 0; i < connections; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, connections - i) }, (_, j) => open(i + j));
      clients.push(...(await Promise.all(batch)));
    }
    // wait (bounded) until the server has attached every connection
    let stats = await ask("stats", { cmd: "stats" });
    const attachDeadline = Date.now() + 60_000;
    while (stats.connections < connections && Date.now() < attachDeadline) {
      await Bun.sleep(200);
      stats = await ask("stats", { cmd: "stats" });
    }
    const kbPerConnection = (stats.rss - before.rss) / Math.max(1, stats.connections) / 1024;
    console.log(
      `${label}: opened ${clients.length} ${transport} connections in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
        `holds ${stats.connections}; rss ${mb(stats.rss)} MB (+${mb(stats.rss - before.rss)} MB, ${kbPerConnection.toFixed(1)} KB per connection)`,
    );

    const fanoutMs: number[] = [];
    const publishMs: number[] = [];
    const publishCpuMs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const marker = `fanout-${round}-${Date.now()}`;
      const start = performance.now();
      const published = await ask("published", { cmd: "publish", marker });
      const deadline = Date.now() + 30_000;
      let got = 0;
      while (Date.now() < deadline) {
        got = clients.reduce((n, c) => n + (c.received(marker) ? 1 : 0), 0);
        if (got === clients.length) break;
        await Bun.sleep(2);
      }
      const total = performance.now() - start;
      fanoutMs.push(total);
      publishMs.push(published.ms);
      publishCpuMs.push(published.cpuMs);
      console.log(
        `${label}: fan-out ${round}: publish ${published.ms.toFixed(1)} ms (CPU ${published.cpuMs.toFixed(1)} ms); all ${got}/${clients.length} clients had it after ${total.toFixed(1)} ms`,
      );
    }

    for (const c of clients) c.close();
    stats = await drained();
    console.log(
      `${label}: after disconnect: ${stats.connections} connections, ${stats.listeners} broker listeners, rss ${mb(stats.rss)} MB`,
    );

    // churn: many short-lived connections must leave nothing behind
    if (cycles > 0) {
      const t1 = performance.now();
      for (let done = 0; done < cycles; done += BATCH) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(BATCH, cycles - done) }, (_, j) => open(done + j)),
        );
        await Bun.sleep(20);
        for (const c of batch) c.close();
      }
      stats = await drained();
      console.log(
        `${label}: after ${cycles} connect/disconnect cycles (${((performance.now() - t1) / 1000).toFixed(1)} s): ${stats.connections} connections, ${stats.listeners} broker listeners, rss ${mb(stats.rss)} MB`,
      );
    }
    return { connections: clients.length, kbPerConnection, fanoutMs, publishMs, publishCpuMs };
  } finally {
    child.send({ cmd: "stop" } satisfies ToChild);
    await Promise.race([child.exited, Bun.sleep(10_000)]);
    child.kill();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const connections = Math.min(MAX_CONNECTIONS, Math.max(1, Number(arg("connections", "10000"))));
  const which = arg("transport", "both");
  const transports: Array<"sse" | "ws"> = which === "both" ? ["sse", "ws"] : [which === "ws" ? "ws" : "sse"];
  const accounts = Math.min(connections, Math.max(1, Number(arg("accounts", String(connections)))));
  const cycles = Math.max(0, Number(arg("cycles", "10000")));
  const rounds = Math.min(50, Math.max(1, Number(arg("rounds", "3"))));
  const profile = process.argv.includes("--profile");
  const tmp = join(import.meta.dir, "..", ".tmp");
  // this process holds every client socket at once, plus a margin for the runtime's own files
  ensureOpenFiles(connections + 1_000);
  const refDir = mkdtempSync(join(tmpdir(), "socialctl-bench-rt-bare-"));
  const bareScript = join(refDir, "bare.ts");
  writeFileSync(bareScript, BARE_SOURCE);
  const rows: string[] = [];
  try {
    for (const transport of transports) {
      const bare = await runAgainst("bare Bun", [bareScript], rounds, {}, transport, connections, accounts, 0);
      const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-rt-"));
      let real: RunResult;
      try {
        console.log(`starting the server with ${accounts} accounts…`);
        real = await runAgainst(
          "socialctl",
          [...(profile ? ["--cpu-prof-md", `--cpu-prof-dir=${tmp}`] : []), import.meta.path, CHILD_FLAG],
          rounds,
          { BENCH_ACCOUNTS: String(accounts), BENCH_DATA_DIR: dataDir },
          transport,
          connections,
          accounts,
          cycles,
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      const ratio = median(real.fanoutMs) / median(bare.fanoutMs);
      rows.push(
        `| ${transport === "sse" ? "SSE" : "WebSocket"} | ${real.connections} | ${median(bare.fanoutMs).toFixed(0)} | ${median(real.fanoutMs).toFixed(0)} | ${ratio.toFixed(2)} | ${median(bare.publishMs).toFixed(0)} / ${median(real.publishMs).toFixed(0)} | ${median(bare.publishCpuMs).toFixed(0)} / ${median(real.publishCpuMs).toFixed(0)} | ${(median(real.publishCpuMs) / median(bare.publishCpuMs)).toFixed(2)} | ${bare.kbPerConnection.toFixed(1)} | ${real.kbPerConnection.toFixed(1)} |`,
      );
    }
  } finally {
    rmSync(refDir, { recursive: true, force: true });
  }
  const load = Bun.spawnSync(["uptime"])
    .stdout.toString()
    .trim()
    .replace(/.*load average: /, "");
  console.log(
    `\none event to every idle connection, median of ${rounds} rounds (publish → every client had it; publish loop: the server's own loop); load average ${load}\n`,
  );
  console.log(
    "| transport | connections | bare Bun ms | socialctl ms | × bare | publish loop ms bare / socialctl | its CPU ms bare / socialctl | × bare CPU | bare KB/conn | socialctl KB/conn |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(r);
}

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
