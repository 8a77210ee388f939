/**
 * Realtime benchmark (not a test): how many idle realtime connections one server process
 * holds, their memory cost, and the time to fan one event out to all of them.
 *
 *   bun scripts/bench-realtime.ts [--connections 10000] [--transport sse|ws] [--accounts N] [--cycles 10000]
 *
 * The server runs in a child process on a fresh temporary data dir (loopback only), so its
 * memory is measured apart from the clients'. Afterwards it runs --cycles short connect/disconnect
 * cycles and reports that no connection or broker listener is left behind. Clients are raw TCP sockets (SSE) or Bun
 * WebSockets in this process. Everything is bounded: connection count ≤ 18,000 (the fd limit
 * here is 20,000 per process), every wait has a deadline, and the data dir is removed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, mb } from "./bench-lib";

const CHILD_FLAG = "--bench-server-child";
const MAX_CONNECTIONS = 18_000;

type ToChild = { cmd: "stats" } | { cmd: "publish"; marker: string } | { cmd: "stop" };
type FromChild =
  | { type: "ready"; url: string; cookies: string[] }
  | { type: "stats"; rss: number; heapUsed: number; connections: number; listeners: number }
  | { type: "published"; ms: number };

/* ---------------------------------------------------------------- server side (child) */

async function runChild(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { silentLogger } = await import("../src/lib/log");
  const { createSession } = await import("../src/domain/sessions/service");
  const { sessionCookies, sessionTtls } = await import("../src/http/context");
  const { realtimeHub } = await import("../src/realtime/hub");
  const { newCuid } = await import("../src/lib/ids");
  const accounts = Number(process.env.BENCH_ACCOUNTS);
  const dataDir = process.env.BENCH_DATA_DIR!;
  const server = await startServer({
    dataDir,
    log: silentLogger,
    overrides: { port: 0, host: "127.0.0.1", "limits.clientRps": 1_000_000 },
  });
  const { app } = server;
  const now = app.clock.now();
  // accounts inserted directly: no password hashing, the bench needs only sessions
  const userIds: number[] = [];
  await app.db.transaction().execute(async (trx) => {
    for (let i = 0; i < accounts; i++) {
      const row = await trx
        .insertInto("users")
        .values({
          cuid: newCuid(),
          email: null,
          username: `bench${i}`,
          username_lower: `bench${i}`,
          display_name: `Bench ${i}`,
          password_hash: null,
          created_at: now,
          updated_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      userIds.push(row.id);
    }
  });
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
      app.events.publish(userIds, "typing", { conversationId: m.marker, user: { id: "bench", username: "bench" } });
      send({ type: "published", ms: performance.now() - t0 });
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

async function main(): Promise<void> {
  const connections = Math.min(MAX_CONNECTIONS, Math.max(1, Number(arg("connections", "10000"))));
  const transport = arg("transport", "sse") === "ws" ? "ws" : "sse";
  const accounts = Math.min(connections, Math.max(1, Number(arg("accounts", String(connections)))));
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-rt-"));
  const pending = new Map<FromChild["type"], (m: FromChild) => void>();
  const child = Bun.spawn([process.execPath, import.meta.path, CHILD_FLAG], {
    env: { ...process.env, BENCH_ACCOUNTS: String(accounts), BENCH_DATA_DIR: dataDir },
    stdio: ["ignore", "inherit", "inherit"],
    ipc(message: FromChild) {
      pending.get(message.type)?.(message);
    },
  });
  const ask = <T extends FromChild["type"]>(type: T, cmd?: ToChild, timeoutMs = 120_000) =>
    new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the server within ${timeoutMs} ms`)), timeoutMs);
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
    console.log(`starting server with ${accounts} accounts…`);
    const ready = await ask("ready");
    const url = new URL(ready.url);
    const before = await ask("stats", { cmd: "stats" });
    console.log(`server idle: rss ${mb(before.rss)} MB`);

    const clients: BenchClient[] = [];
    const t0 = performance.now();
    const BATCH = 500;
    for (let i = 0; i < connections; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, connections - i) }, (_, j) => {
        const cookie = ready.cookies[(i + j) % accounts]!;
        return transport === "sse" ? openSse(url, cookie) : openWs(url, cookie);
      });
      clients.push(...(await Promise.all(batch)));
    }
    // wait (bounded) until the server has attached every connection
    let stats = await ask("stats", { cmd: "stats" });
    const attachDeadline = Date.now() + 60_000;
    while (stats.connections < connections && Date.now() < attachDeadline) {
      await Bun.sleep(200);
      stats = await ask("stats", { cmd: "stats" });
    }
    console.log(
      `opened ${clients.length} ${transport} connections in ${((performance.now() - t0) / 1000).toFixed(1)} s; server holds ${stats.connections}`,
    );
    console.log(
      `server rss ${mb(stats.rss)} MB (+${mb(stats.rss - before.rss)} MB, ${((stats.rss - before.rss) / Math.max(1, stats.connections) / 1024).toFixed(1)} KB per connection)`,
    );

    for (let round = 1; round <= 3; round++) {
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
      console.log(
        `fan-out ${round}: server publish ${published.ms.toFixed(1)} ms; all ${got}/${clients.length} clients had it after ${total.toFixed(1)} ms`,
      );
    }

    for (const c of clients) c.close();
    stats = await drained();
    console.log(
      `after disconnect: server holds ${stats.connections} connections, ${stats.listeners} broker listeners, rss ${mb(stats.rss)} MB`,
    );

    // churn: many short-lived connections must leave nothing behind
    const cycles = Math.max(0, Number(arg("cycles", "10000")));
    const t1 = performance.now();
    for (let done = 0; done < cycles; done += BATCH) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(BATCH, cycles - done) }, (_, j) => {
          const cookie = ready.cookies[(done + j) % accounts]!;
          return transport === "sse" ? openSse(url, cookie) : openWs(url, cookie);
        }),
      );
      await Bun.sleep(20);
      for (const c of batch) c.close();
    }
    stats = await drained();
    console.log(
      `after ${cycles} connect/disconnect cycles (${((performance.now() - t1) / 1000).toFixed(1)} s): ${stats.connections} connections, ${stats.listeners} broker listeners, rss ${mb(stats.rss)} MB`,
    );
  } finally {
    child.send({ cmd: "stop" } satisfies ToChild);
    await Promise.race([child.exited, Bun.sleep(10_000)]);
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
