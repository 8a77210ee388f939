/**
 * Soak (not a test): PEOPLE signed-in people, each with an open realtime stream, reading their
 * feed, chat list and a chat's history, sending messages and now and then searching, each
 * pausing THINK ms on average between two requests, for MINUTES, against the compiled binary
 * confined like a small box (1 GiB, one CPU). Prints p50/p99 and errors per route, the
 * server's RSS over time and its growth in the second half, "database is locked" lines in the
 * server's log, the log's size, and the CPU the server and this load generator each used.
 *
 *   bun scripts/soak.ts [--people 5000] [--minutes 10] [--think-ms 5000] [--memory-max 1G]
 *                       [--cpu-percent 100] [--binary dist/socialctl] [--no-build]
 *
 * The confinement, in the order tried: `systemd-run --scope -p MemoryMax -p CPUQuota`; a cgroup
 * made by hand (v2, else v1's memory and cpu controllers); none, said so. The server logs with
 * its defaults into a file. The data dir is seeded from source before the binary starts on it:
 * the people (no passwords, sessions made directly), one private chat per pair of people with a
 * few messages, posts by every tenth person, who the others follow.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync, mkdirSync, writeFileSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { arg, insertAccounts, mb, processCpuSeconds, processMemory } from "./bench-lib";

const ROOT = resolve(import.meta.dir, "..");

interface Person {
  cookie: string;
  csrf: string;
  chat: string;
}

/* ---------------------------------------------------------------- seeding (from source) */

async function seed(binary: string, dataDir: string, people: number): Promise<Person[]> {
  const { storeConfigValues } = await import("../src/config");
  const { openApp } = await import("../src/wiring");
  const { silentLogger } = await import("../src/lib/log");
  const { createSession } = await import("../src/domain/sessions/service");
  const { sessionCookies, sessionTtls } = await import("../src/http/context");
  const { issueCsrfToken } = await import("../src/http/csrf");
  const { openPrivateChat, sendMessage } = await import("../src/domain/chats");
  const { createPost } = await import("../src/domain/posts/service");
  const { toggleFollow } = await import("../src/domain/relations/actions");
  // the binary makes the instance (config, secret, schema) as an operator's would
  const init = Bun.spawnSync([binary, "init", "--data-dir", dataDir, "--yes", "--json"], { stderr: "pipe" });
  if (init.exitCode !== 0) throw new Error(`init failed: ${init.stderr.toString()}`);
  // every person on 127.0.0.1: the per-address limits are lifted; a session outlives the soak
  storeConfigValues(dataDir, {
    host: "127.0.0.1",
    "limits.clientRps": 1_000_000,
    "limits.blockAfterRejections": 100_000_000,
    "limits.messagesPerMinute": 1_000_000,
    "limits.streamsPerSession": 1_000_000,
    "auth.accessTtlSeconds": 86_400,
  });
  const app = await openApp({ dataDir, log: silentLogger });
  const now = app.clock.now();
  const ids = await insertAccounts(app.db, "soak", people, now);
  const authors = ids.filter((_, i) => i % 10 === 0);
  const authorRows = await app.db.selectFrom("users").selectAll().where("id", "in", authors).execute();
  for (const [n, author] of authorRows.entries())
    await createPost(app, author, { content: `Soak post ${n} about #soak and the weather` });
  const result: Person[] = [];
  for (let i = 0; i < people; i++) {
    const { tokens } = await createSession(app.db, now, sessionTtls(app), {
      userId: ids[i]!,
      userAgent: "socialctl-soak",
      ip: "127.0.0.1",
    });
    const csrf = issueCsrfToken(app.secret);
    const cookie = [...sessionCookies(app, tokens).map((c) => c.split(";")[0]), `csrf_token=${csrf}`].join("; ");
    // each follows five authors (others than themselves)
    for (let k = 0; k < Math.min(5, authors.length); k++) {
      const author = authors[(i + k) % authors.length]!;
      if (author !== ids[i]) await toggleFollow(app, ids[i]!, author);
    }
    result.push({ cookie, csrf, chat: "" });
  }
  // one private chat for each pair of neighbours, with a few messages
  for (let i = 0; i + 1 < people; i += 2) {
    const chat = await openPrivateChat(app, ids[i]!, ids[i + 1]!);
    for (let k = 0; k < 3; k++)
      await sendMessage(app, { conversationId: chat.id, senderId: ids[i + (k % 2)]!, content: `hello ${k}` });
    result[i]!.chat = result[i + 1]!.chat = chat.cuid;
  }
  if (people % 2 === 1) result[people - 1]!.chat = result[people - 2]!.chat;
  await app.close();
  return result;
}

/* ---------------------------------------------------------------- confinement */

interface Confinement {
  how: string;
  /** the command that runs ARGV inside */
  wrap(argv: string[]): string[];
  /** the cgroup's memory charge (page cache included), when it can be read */
  usage(): number | null;
  remove(): void;
}

const parseBytes = (text: string): number => {
  const m = /^(\d+)([KMG]?)$/i.exec(text);
  if (!m) throw new Error(`--memory-max: ${text} is not a size (1G, 512M)`);
  return Number(m[1]) * { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]!.toUpperCase() as "" | "K" | "M" | "G"];
};

function confine(memoryMax: string, cpuPercent: number): Confinement {
  const bytes = parseBytes(memoryMax);
  const name = `socialctl-soak-${process.pid}`;
  const tried =
    Bun.which("systemd-run") &&
    Bun.spawnSync(["systemd-run", "--scope", "--quiet", "-p", "MemoryMax=1M", "true"], { stderr: "pipe" }).exitCode ===
      0;
  if (tried)
    return {
      how: `systemd-run --scope -p MemoryMax=${memoryMax} -p CPUQuota=${cpuPercent}%`,
      wrap: (argv) => [
        "systemd-run",
        "--scope",
        "--quiet",
        "-p",
        `MemoryMax=${memoryMax}`,
        "-p",
        `CPUQuota=${cpuPercent}%`,
        ...argv,
      ],
      usage: () => null,
      remove: () => {},
    };
  const enter = (procs: string[]) => (argv: string[]) => [
    "sh",
    "-c",
    `${procs.map((p) => `echo $$ > ${p}`).join(" && ")} && exec "$0" "$@"`,
    ...argv,
  ];
  try {
    if (existsSync("/sys/fs/cgroup/cgroup.controllers")) {
      const dir = `/sys/fs/cgroup/${name}`;
      mkdirSync(dir);
      writeFileSync(`${dir}/memory.max`, String(bytes));
      writeFileSync(`${dir}/cpu.max`, `${cpuPercent * 1000} 100000`);
      return {
        how: `cgroup v2 by hand (memory.max ${memoryMax}, cpu.max ${cpuPercent}%)`,
        wrap: enter([`${dir}/cgroup.procs`]),
        usage: () => Number(readFileSync(`${dir}/memory.current`, "utf8")),
        remove: () => rmdirSync(dir),
      };
    }
    // v1: a child of this process's own memory and cpu groups
    const own = (controller: string) =>
      readFileSync("/proc/self/cgroup", "utf8")
        .split("\n")
        .map((line) => line.split(":"))
        .find((f) => f[1]?.split(",").includes(controller))?.[2] ?? "/";
    const memory = join("/sys/fs/cgroup/memory", own("memory"), name);
    const cpu = join("/sys/fs/cgroup/cpu", own("cpu"), name);
    mkdirSync(memory);
    mkdirSync(cpu);
    writeFileSync(`${memory}/memory.limit_in_bytes`, String(bytes));
    writeFileSync(`${cpu}/cpu.cfs_period_us`, "100000");
    writeFileSync(`${cpu}/cpu.cfs_quota_us`, String(cpuPercent * 1000));
    return {
      how: `cgroup v1 by hand (memory.limit_in_bytes ${memoryMax}, cpu.cfs_quota_us ${cpuPercent}%)`,
      wrap: enter([`${memory}/cgroup.procs`, `${cpu}/cgroup.procs`]),
      usage: () => Number(readFileSync(`${memory}/memory.usage_in_bytes`, "utf8")),
      remove: () => {
        rmdirSync(memory);
        rmdirSync(cpu);
      },
    };
  } catch (err) {
    console.error(`no cgroup could be made (${String(err)}): the server runs unconfined`);
    return { how: "none", wrap: (argv) => argv, usage: () => null, remove: () => {} };
  }
}

/* ---------------------------------------------------------------- the people */

const ROUTES = ["feed", "chat list", "chat history", "send", "search", "me"] as const;
type Route = (typeof ROUTES)[number];
/** how often each request comes, in a person's mix */
const MIX: Array<[Route, number]> = [
  ["feed", 30],
  ["chat list", 20],
  ["chat history", 15],
  ["send", 20],
  ["search", 5],
  ["me", 10],
];
const SEARCH_TERMS = ["weather", "hello", "soak", "post", "nothing-matches"];

function pickRoute(): Route {
  let r = Math.random() * 100;
  for (const [route, weight] of MIX) if ((r -= weight) < 0) return route;
  return "me";
}

/** An open realtime stream: a raw socket whose bytes are read and dropped, as cheap as a client can be. */
async function openStream(url: URL, cookie: string, onClose: () => void): Promise<{ close(): void }> {
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: { data() {}, close: onClose, error: onClose },
  });
  socket.write(
    `GET /api/realtime/events HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return { close: () => socket.end() };
}

async function main(): Promise<void> {
  const people = Number(arg("people", "5000"));
  const minutes = Number(arg("minutes", "10"));
  const thinkMs = Number(arg("think-ms", "5000"));
  const memoryMax = arg("memory-max", "1G");
  const cpuPercent = Number(arg("cpu-percent", "100"));
  if (!(people >= 2 && people <= 20_000) || !(minutes > 0 && minutes <= 240) || !(thinkMs >= 10)) {
    console.error("--people must be in [2, 20000], --minutes in (0, 240], --think-ms at least 10");
    process.exit(1);
  }
  let binary = resolve(arg("binary", join(ROOT, "dist/socialctl")));
  if (!process.argv.includes("--no-build") && !process.argv.includes("--binary")) {
    console.log("building dist/socialctl…");
    const built = Bun.spawnSync(["bun", join(ROOT, "scripts/build.ts")], { stdout: "inherit", stderr: "inherit" });
    if (built.exitCode !== 0) process.exit(1);
    binary = join(ROOT, "dist/socialctl");
  }
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-soak-"));
  const logFile = join(dataDir, "server.log");
  console.log(`seeding ${people} people…`);
  const crowd = await seed(binary, dataDir, people);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const confinement = confine(memoryMax, cpuPercent);
  const server = Bun.spawn(
    confinement.wrap([binary, "serve", "--data-dir", dataDir, "--port", String(port), "--host", "127.0.0.1"]),
    { stdout: "ignore", stderr: Bun.file(logFile), env: { ...process.env, SOCIAL_DATA_DIR: dataDir } },
  );
  const base = `http://127.0.0.1:${port}`;
  const url = new URL(base);
  try {
    for (let t0 = Date.now(); ;) {
      if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) break;
      if (Date.now() - t0 > 60_000 || server.exitCode !== null)
        throw new Error(`the server did not start: see ${logFile}`);
      await Bun.sleep(100);
    }
    console.log(`server pid ${server.pid}, confined by: ${confinement.how}`);

    const latencies = new Map<Route, number[]>(ROUTES.map((r) => [r, []]));
    const errors = new Map<string, number>();
    const fail = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);
    let streamsOpen = 0;
    let streamsLost = 0;
    let sent = 0;
    const start = performance.now();
    const end = start + minutes * 60_000;
    const request = async (who: Person, route: Route): Promise<void> => {
      const headers: Record<string, string> = { cookie: who.cookie, "user-agent": "socialctl-soak" };
      let path: string;
      let init: RequestInit = { headers };
      if (route === "feed") path = "/api/social/feed";
      else if (route === "chat list") path = "/api/social/messages";
      else if (route === "chat history") path = `/api/social/messages/${who.chat}`;
      else if (route === "search")
        path = `/api/social/search?q=${SEARCH_TERMS[Math.floor(Math.random() * SEARCH_TERMS.length)]}`;
      else if (route === "me") path = "/api/auth/me";
      else {
        path = `/api/social/messages/${who.chat}`;
        const n = sent++;
        init = {
          method: "POST",
          headers: { ...headers, "content-type": "application/json", "x-csrf-token": who.csrf },
          body: JSON.stringify({ content: `soak message ${n}`, clientMessageId: `soak-${n}` }),
        };
      }
      const t0 = performance.now();
      try {
        const res = await fetch(base + path, init);
        await res.arrayBuffer();
        latencies.get(route)!.push(performance.now() - t0);
        if (!res.ok) fail(`${route} ${res.status}`);
      } catch (err) {
        fail(`${route} ${(err as Error).name}`);
      }
    };
    const streams: Array<{ close(): void }> = [];
    // streams open a few at a time, as people arrive
    for (let i = 0; i < crowd.length; i++) {
      streams.push(await openStream(url, crowd[i]!.cookie, () => void (performance.now() < end && streamsLost++)));
      streamsOpen++;
    }
    console.log(`${streamsOpen} streams open; ${minutes} min of load, think time ~${thinkMs} ms`);
    const live = async (who: Person) => {
      // arrivals spread over one think time
      await Bun.sleep(Math.random() * thinkMs);
      while (performance.now() < end) {
        await request(who, pickRoute());
        await Bun.sleep(thinkMs * (0.5 + Math.random()));
      }
    };
    const cpuStart = { server: processCpuSeconds(server.pid), load: process.cpuUsage() };
    const samples: Array<{ minute: number; rss: number; cgroup: number | null }> = [];
    const sample = () => {
      const minute = (performance.now() - start) / 60_000;
      const { rss } = processMemory(server.pid);
      const cgroup = confinement.usage();
      samples.push({ minute, rss, cgroup });
      const done = [...latencies.values()].reduce((n, l) => n + l.length, 0);
      const failed = [...errors.values()].reduce((n, c) => n + c, 0);
      console.log(
        `  ${minute.toFixed(1).padStart(5)} min  RSS ${mb(rss)} MiB${cgroup === null ? "" : `  cgroup ${mb(cgroup)} MiB`}  ${done} requests, ${failed} failed`,
      );
    };
    sample();
    const sampler = setInterval(sample, Math.min(30_000, (minutes * 60_000) / 10));
    await Promise.all(crowd.map(live));
    clearInterval(sampler);
    sample();
    const seconds = (performance.now() - start) / 1000;
    const serverCpu = processCpuSeconds(server.pid) - cpuStart.server;
    const loadCpu = process.cpuUsage(cpuStart.load);
    for (const s of streams) s.close();

    const log = readFileSync(logFile, "utf8");
    const locked = log.split("database is locked").length - 1;
    const total = [...latencies.values()].reduce((n, l) => n + l.length, 0);
    console.log(
      `\n${people} people, ${total} requests in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)} req/s)`,
    );
    console.log("\n| route | requests | p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|");
    for (const route of ROUTES) {
      const sorted = latencies.get(route)!.sort((a, b) => a - b);
      const at = (q: number) =>
        sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
      const failed = [...errors].filter(([k]) => k.startsWith(route + " ")).reduce((n, [, c]) => n + c, 0);
      console.log(`| ${route} | ${sorted.length} | ${at(0.5).toFixed(1)} | ${at(0.99).toFixed(1)} | ${failed} |`);
    }
    const second = samples.filter((s) => s.minute >= minutes / 2);
    const [first, last] = [second[0]!, second.at(-1)!];
    const slope = last.minute > first.minute ? (last.rss - first.rss) / (last.minute - first.minute) : 0;
    const peak = Math.max(...samples.map((s) => s.rss));
    console.log(
      `\nRSS ${mb(samples[0]!.rss)} MiB at the start, ${mb(last.rss)} MiB at the end, peak ${mb(peak)} MiB (VmHWM ${mb(processMemory(server.pid).peakRss)} MiB); growth in the second half ${(slope / 1024 / 1024).toFixed(2)} MiB/min`,
    );
    console.log(`errors: ${errors.size ? JSON.stringify(Object.fromEntries(errors)) : "none"}`);
    console.log(`streams dropped by the server during the run: ${streamsLost}`);
    console.log(`"database is locked" in the server's log: ${locked}`);
    console.log(`server log: ${(statSync(logFile).size / 1024).toFixed(0)} KiB`);
    const loadSeconds = (loadCpu.user + loadCpu.system) / 1e6;
    console.log(
      `CPU: server ${serverCpu.toFixed(1)} s (${((serverCpu / seconds) * 100).toFixed(0)} % of a core), load generator ${loadSeconds.toFixed(1)} s (${((loadSeconds / seconds) * 100).toFixed(0)} %); load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );
  } finally {
    server.kill("SIGTERM");
    await Promise.race([server.exited, Bun.sleep(10_000)]);
    if (server.exitCode === null) server.kill("SIGKILL");
    await server.exited;
    try {
      confinement.remove();
    } catch (err) {
      console.error(`the cgroup was not removed: ${String(err)}`);
    }
    if (process.argv.includes("--keep")) console.log(`data dir kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
