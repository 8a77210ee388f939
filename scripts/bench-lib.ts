/**
 * Shared plumbing for the benchmarks in scripts/bench*.ts (not tests: they print numbers for a
 * person). Speed is reported as a ratio against a bare `Bun.serve` JSON baseline measured in
 * the same run, because the machine is small (2 cores) and noisy: absolute req/s drift from
 * run to run, the ratio much less. Load comes from `wrk` (apt-get install -y wrk); everything
 * listens on 127.0.0.1 only, and every run and wait is bounded.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigKey } from "../src/config";
import type { Db } from "../src/db";
import { newCuid } from "../src/lib/ids";

/** Config overrides that lift every rate limit, so a benchmark measures work, not 429s. */
export const LIFTED_LIMITS: Partial<Record<ConfigKey, unknown>> = {
  port: 0,
  host: "127.0.0.1",
  registration: "open",
  "limits.clientRps": 1_000_000,
  "limits.loginPer10Min": 1_000_000,
  "limits.botCallsPerMinute": 1_000_000,
  "limits.botNewChatsPerHour": 1_000_000,
  "limits.postsPerHour": 1_000_000,
  "limits.commentsPerHour": 1_000_000,
  "limits.followsPerHour": 1_000_000,
  "limits.messagesPerMinute": 1_000_000,
  "limits.blockAfterRejections": 100_000_000,
};

/** Reads `--name value` from the command line. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** The wrk binary, or exit 2 with how to install it. */
export function requireWrk(): string {
  const wrk = Bun.which("wrk");
  if (!wrk) {
    console.error("wrk not found; install with: apt-get install -y wrk");
    process.exit(2);
  }
  return wrk;
}

/* ---------------------------------------------------------------- processes */

/** taskset (util-linux), or null where it is missing. */
export const taskset = (): string | null => Bun.which("taskset");

function requireTaskset(): string {
  const path = taskset();
  if (!path) throw new Error("taskset not found (util-linux); run unpinned");
  return path;
}

/** Puts every thread of the running process PID (and the threads it starts later) on CPUS, a `taskset -c` list. */
export function pinProcess(pid: number, cpus: string): void {
  const p = Bun.spawnSync([requireTaskset(), "-a", "-p", "-c", cpus, String(pid)], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`taskset could not pin ${pid} to CPU ${cpus}: ${p.stderr.toString().trim()}`);
}

/** Resident set size (current and peak) of a process, in bytes, from /proc. */
export function processMemory(pid: number): { rss: number; peakRss: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peakRss: kb("VmHWM") };
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc (10 ms resolution). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // the command name (2nd field) may hold spaces: count fields after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface ChildServer<T> {
  pid: number;
  /** What the child sent once it was listening. */
  ready: T;
  /** Asks the child to stop cleanly; kills it after a bounded wait. */
  stop(): Promise<void>;
}

/**
 * Runs SCRIPT with FLAG in a child Bun process (so the server's memory and CPU are its own)
 * and waits (bounded) for its first IPC message. The child ends itself on a `{cmd: "stop"}`
 * message; see serveChild. BUN_ARGS go before the script (e.g. `--cpu-prof-md`); the child's
 * stderr (where the server logs) goes to STDERR_FILE when given.
 */
export async function spawnChild<T>(
  script: string,
  flag: string,
  opts: { env?: Record<string, string>; bunArgs?: string[]; timeoutMs?: number; stderrFile?: string } = {},
): Promise<ChildServer<T>> {
  const { env = {}, bunArgs = [], timeoutMs = 120_000, stderrFile } = opts;
  let onReady: (m: T) => void = () => {};
  const ready = new Promise<T>((resolve) => (onReady = resolve));
  const child = Bun.spawn([process.execPath, ...bunArgs, script, flag], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", stderrFile ? Bun.file(stderrFile) : "inherit"],
    ipc: (message: T) => onReady(message),
  });
  const timer = setTimeout(() => child.kill(), timeoutMs);
  const exited = child.exited.then((code) =>
    Promise.reject(
      new Error(`${script} child exited (${code}) before it was ready${stderrFile ? `; see ${stderrFile}` : ""}`),
    ),
  );
  const first = await Promise.race([ready, exited]);
  clearTimeout(timer);
  return {
    pid: child.pid,
    ready: first,
    async stop() {
      try {
        child.send({ cmd: "stop" });
      } catch {
        // already gone
      }
      await Promise.race([child.exited, Bun.sleep(10_000)]);
      child.kill();
    },
  };
}

/** In a child started by spawnChild: reports READY to the parent and stops on request. */
export function serveChild(ready: unknown, stop: () => Promise<void>): void {
  process.on("message", async (m: { cmd?: string }) => {
    if (m?.cmd !== "stop") return;
    await stop();
    process.exit(0);
  });
  process.send!(ready);
}

/** A bare Bun.serve answering a small JSON body on every path: the yardstick for the ratios. */
const BASELINE_SOURCE = `
const body = JSON.stringify({ success: true, data: { status: "ok" } });
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) });
process.send({ url: "http://127.0.0.1:" + server.port });
process.on("message", () => { server.stop(true); process.exit(0); });
`;

/** Starts the baseline server in its own process. */
export async function startBaseline(): Promise<ChildServer<{ url: string }>> {
  const dir = mkdtempSync(join(tmpdir(), "socialctl-bench-baseline-"));
  const script = join(dir, "baseline.ts");
  writeFileSync(script, BASELINE_SOURCE);
  const child = await spawnChild<{ url: string }>(script, "--baseline");
  return {
    ...child,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the one-statement reference endpoints (scripts/bench-reference.ts) in their own
 * process: `GET {url}/select` is one primary-key SELECT, `POST {url}/insert` one autocommit INSERT.
 */
export async function startReferences(): Promise<ChildServer<{ url: string }>> {
  return spawnChild<{ url: string }>(join(import.meta.dir, "bench-reference.ts"), REFERENCE_CHILD_FLAG);
}
export const REFERENCE_CHILD_FLAG = "--bench-reference-child";

/* ---------------------------------------------------------------- wrk */

export interface WrkRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A fixed request body. */
  body?: string;
  /**
   * A body that differs per request: `{n}` is replaced by a number unique in the run
   * (per wrk thread and request), e.g. for idempotency keys.
   */
  bodyTemplate?: string;
  /**
   * Paths (on the URL's origin) the requests take in turn, e.g. sends spread over many chats
   * so that no one chat's row lock decides the result.
   */
  paths?: string[];
  /**
   * Headers of each path's requests (same length as paths), beside `headers`: e.g. a different
   * person's session per path, so that no one person's rows decide the result either.
   */
  pathHeaders?: Array<Record<string, string>>;
}

export interface WrkOptions {
  seconds: number;
  threads: number;
  connections: number;
  /** CPUs wrk runs on (a `taskset -c` list, e.g. "1"); anywhere the scheduler puts it when absent */
  cpus?: string;
}

export interface WrkResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** responses with a status other than 2xx/3xx */
  non2xx: number;
  /** connect/read/write errors and timeouts */
  socketErrors: number;
}

const lua = (s: string) => JSON.stringify(s); // a JSON string literal is a valid Lua string literal for our ASCII bodies

/** The wrk Lua script for REQ: sets method, headers and body, and prints one JSON line at the end. */
export function wrkScript(req: WrkRequest): string {
  const lines = [`wrk.method = ${lua(req.method ?? "GET")}`];
  for (const [k, v] of Object.entries(req.headers ?? {})) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`);
  if (req.body !== undefined) lines.push(`wrk.body = ${lua(req.body)}`);
  let body = "nil";
  if (req.bodyTemplate !== undefined) {
    const [before, after] = req.bodyTemplate.split("{n}");
    if (after === undefined) throw new Error("bodyTemplate needs a {n} placeholder");
    lines.push("local threads = 0", "function setup(thread) threads = threads + 1; thread:set('tid', threads) end");
    body = `${lua(before!)} .. tid .. '-' .. n .. ${lua(after)}`;
  }
  let path = "nil";
  if (req.paths !== undefined) {
    if (req.paths.length === 0 || req.paths.some((p) => !p.startsWith("/"))) throw new Error("paths must start with /");
    lines.push(`local paths = { ${req.paths.map(lua).join(", ")} }`);
    path = "paths[n % #paths + 1]";
  }
  let headers = "nil";
  if (req.pathHeaders !== undefined) {
    if (req.pathHeaders.length !== req.paths?.length) throw new Error("pathHeaders needs one entry per path");
    // wrk.format takes the whole header table, so each path's holds the common ones too
    const table = (h: Record<string, string>) =>
      `{ ${Object.entries({ ...req.headers, ...h })
        .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
        .join(", ")} }`;
    lines.push(`local pathHeaders = { ${req.pathHeaders.map(table).join(", ")} }`);
    headers = "pathHeaders[n % #paths + 1]";
  }
  if (body !== "nil" || path !== "nil")
    lines.push("local n = 0", `function request() n = n + 1; return wrk.format(nil, ${path}, ${headers}, ${body}) end`);
  lines.push(
    "function done(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format(\'BENCH_RESULT {"requests":%d,"duration_us":%d,"non2xx":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\\n\',',
    "    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))",
    "end",
  );
  return lines.join("\n") + "\n";
}

/** Parses the BENCH_RESULT line our wrk script prints. */
export function parseWrkOutput(out: string): WrkResult {
  const m = out.match(/^BENCH_RESULT (\{.*\})$/m);
  if (!m) throw new Error(`could not read wrk's output:\n${out}`);
  const r = JSON.parse(m[1]!) as {
    requests: number;
    duration_us: number;
    non2xx: number;
    socket_errors: number;
    p50_us: number;
    p99_us: number;
  };
  return {
    requests: r.requests,
    rps: r.duration_us > 0 ? r.requests / (r.duration_us / 1e6) : 0,
    p50Ms: r.p50_us / 1000,
    p99Ms: r.p99_us / 1000,
    non2xx: r.non2xx,
    socketErrors: r.socket_errors,
  };
}

/** Runs wrk against REQ for a bounded time (loopback URLs only). */
export async function runWrk(wrk: string, req: WrkRequest, opts: WrkOptions): Promise<WrkResult> {
  const host = new URL(req.url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`benchmarks run on loopback only, not ${host}`);
  const dir = mkdtempSync(join(tmpdir(), "socialctl-bench-wrk-"));
  try {
    const script = join(dir, "bench.lua");
    writeFileSync(script, wrkScript(req));
    const p = Bun.spawn(
      [
        ...(opts.cpus === undefined ? [] : [requireTaskset(), "-c", opts.cpus]),
        wrk,
        `-t${opts.threads}`,
        `-c${opts.connections}`,
        `-d${opts.seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        req.url,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const killer = setTimeout(() => p.kill(), (opts.seconds + 30) * 1000);
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    clearTimeout(killer);
    await p.exited;
    return parseWrkOutput(out + err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/* ---------------------------------------------------------------- rounds */

/** The middle of VALUES once sorted (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  if (!values.length) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and range of VALUES. */
export function spread(values: number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/**
 * The wrk runs of one round for COUNT rows, each row next to a run of its own reference: the
 * reference first in even rounds (0, 2, …), the row first in odd ones, so that a machine
 * getting busier or quieter during a round moves a row and its reference alike and the order
 * cancels out over rounds.
 */
export function pairedRuns(round: number, count: number): { row: number; reference: boolean }[] {
  const referenceFirst = round % 2 === 0;
  return Array.from({ length: count }, (_, row) => [
    { row, reference: referenceFirst },
    { row, reference: !referenceFirst },
  ]).flat();
}

/* ---------------------------------------------------------------- reporting */

export interface BenchRow {
  name: string;
  result: WrkResult;
  /** req/s divided by the baseline's req/s in the same run */
  ratio: number;
  /**
   * req/s divided by the req/s of the reference doing the same kind of work (one SELECT / one
   * INSERT); over rounds the median, with the smallest and largest round's ratio
   */
  reference?: { name: string; ratio: number; min?: number; max?: number; cpuRatio?: number };
  /** CPU time the serving process spent per request during the run, in µs (steadier than req/s on a busy machine) */
  cpuUsPerRequest?: number;
}

/**
 * A markdown table of ROWS: req/s, p50, p99, ratio to the baseline and to the row's reference,
 * the reference ratio's range over rounds and the reference's CPU per request ÷ the row's when
 * any row has them, failures, and the server's CPU per request when any row has it.
 */
export function markdownTable(rows: BenchRow[]): string {
  const cpu = rows.some((r) => r.cpuUsPerRequest !== undefined);
  const range = rows.some((r) => r.reference?.min !== undefined);
  const out = [
    `| endpoint | req/s | p50 ms | p99 ms | × bare | × reference |${range ? " × ref min–max | × ref CPU |" : ""} non-2xx |${cpu ? " CPU µs/req |" : ""}`,
    `|---|---:|---:|---:|---:|---:|${range ? "---:|---:|" : ""}---:|${cpu ? "---:|" : ""}`,
  ];
  for (const r of rows) {
    const failures = r.result.non2xx + r.result.socketErrors;
    const reference = r.reference ? `${r.reference.ratio.toFixed(2)} (${r.reference.name})` : "";
    const { min, max, cpuRatio } = r.reference ?? {};
    const rangeCell = range
      ? ` ${min === undefined || max === undefined ? "" : `${min.toFixed(2)}–${max.toFixed(2)}`} | ${cpuRatio?.toFixed(2) ?? ""} |`
      : "";
    const cpuCell = cpu ? ` ${r.cpuUsPerRequest === undefined ? "" : Math.round(r.cpuUsPerRequest)} |` : "";
    out.push(
      `| ${r.name} | ${Math.round(r.result.rps).toLocaleString("en-US")} | ${r.result.p50Ms.toFixed(2)} | ${r.result.p99Ms.toFixed(2)} | ${r.ratio.toFixed(2)} | ${reference} |${rangeCell} ${failures} |${cpuCell}`,
    );
  }
  return out.join("\n");
}

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/* ---------------------------------------------------------------- write groups */

/** The server's write-group histogram (`social_db_write_group_size` in /metrics): commits per size bucket. */
export interface WriteGroups {
  /** cumulative counts by upper bound ("1", "2", …, "+Inf") */
  buckets: Record<string, number>;
  /** transactions committed */
  sum: number;
  /** commits */
  count: number;
}

/** Reads the write-group histogram out of a /metrics exposition text. */
export function parseWriteGroups(text: string): WriteGroups {
  const out: WriteGroups = { buckets: {}, sum: 0, count: 0 };
  for (const line of text.split("\n")) {
    const m = /^social_db_write_group_size_(bucket|sum|count)(?:\{le="([^"]+)"\})? (\S+)$/.exec(line);
    if (!m) continue;
    if (m[1] === "bucket") out.buckets[m[2]!] = Number(m[3]);
    else out[m[1] as "sum" | "count"] = Number(m[3]);
  }
  return out;
}

/** What happened between two readings: "3,120 commits for 19,805 writes (mean 6.3 per commit; p50 ≤ 8, p99 ≤ 16)". */
export function describeWriteGroups(before: WriteGroups, after: WriteGroups): string {
  const count = after.count - before.count;
  const sum = after.sum - before.sum;
  if (count <= 0) return "no commits";
  const bounds = Object.keys(after.buckets);
  const upTo = (q: number) => bounds.find((b) => (after.buckets[b]! - (before.buckets[b] ?? 0)) / count >= q) ?? "+Inf";
  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  return `${n(count)} commits for ${n(sum)} writes (mean ${(sum / count).toFixed(1)} per commit; p50 ≤ ${upTo(0.5)}, p99 ≤ ${upTo(0.99)})`;
}

/** The value of an unlabelled gauge or counter NAME in a /metrics exposition text (null when absent). */
export function parseMetric(text: string, name: string): number | null {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : null;
}

/** Scrapes the server at URL (metrics served on the main listener behind TOKEN): its write groups and WAL size. */
export async function fetchWriteGroups(url: string, token: string): Promise<WriteGroups & { walBytes: number | null }> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const text = await res.text();
  return { ...parseWriteGroups(text), walBytes: parseMetric(text, "social_database_wal_bytes") };
}

/** One event of a Chromium trace (chrome://tracing's JSON format), the fields used here. */
export interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** thread (CPU) time, where the trace records it */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/**
 * Where the renderer's long tasks went, from a Chromium trace (devtools.timeline categories):
 * the main thread's tasks (RunTask) longer than OVER_MS by the wall clock, with their CPU
 * time (a task can be long only because a busy machine took the core away), and the self
 * time of every event inside them summed by name (Layout, Paint, FunctionCall, MinorGC…).
 */
export function attributeLongTasks(
  events: TraceEvent[],
  overMs = 50,
): { tasks: { wallMs: number; cpuMs: number }[]; longestCpuMs: number; selfMs: [name: string, ms: number][] } {
  const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  if (!main) return { tasks: [], longestCpuMs: 0, selfMs: [] };
  const timed = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const self = new Map<string, number>();
  const tasks: { wallMs: number; cpuMs: number }[] = [];
  let longestCpuMs = 0;
  for (let i = 0; i < timed.length;) {
    const top = timed[i]!;
    let j = i + 1;
    while (j < timed.length && timed[j]!.ts < top.ts + top.dur!) j++;
    if (top.name === "RunTask") longestCpuMs = Math.max(longestCpuMs, (top.tdur ?? top.dur!) / 1000);
    if (top.name === "RunTask" && top.dur! > overMs * 1000) {
      tasks.push({ wallMs: top.dur! / 1000, cpuMs: (top.tdur ?? top.dur!) / 1000 });
      // self time: an event's duration less its direct children's
      const stack: { e: TraceEvent; children: number }[] = [];
      const closeUntil = (t: number) => {
        while (stack.length && stack.at(-1)!.e.ts + stack.at(-1)!.e.dur! <= t) {
          const done = stack.pop()!;
          self.set(done.e.name, (self.get(done.e.name) ?? 0) + (done.e.dur! - done.children) / 1000);
          if (stack.length) stack.at(-1)!.children += done.e.dur!;
        }
      };
      for (let k = i; k < j; k++) {
        closeUntil(timed[k]!.ts);
        stack.push({ e: timed[k]!, children: 0 });
      }
      closeUntil(Infinity);
    }
    i = j;
  }
  return { tasks, longestCpuMs, selfMs: [...self].sort((a, b) => b[1] - a[1]) };
}

/** A V8 CPU profile (CDP Profiler.stop) summed by function: self time in ms, most first. */
export function selfTimeByFunction(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}): [name: string, ms: number][] {
  const names = new Map(
    profile.nodes.map((n) => {
      const { functionName, url, lineNumber } = n.callFrame;
      const file = url.split("/").pop() || url;
      return [n.id, `${functionName || "(anonymous)"}${file ? ` ${file}:${lineNumber + 1}` : ""}`];
    }),
  );
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // each sample's time is the delta to the next one
  for (let i = 0; i < samples.length; i++) {
    const name = names.get(samples[i]!) ?? "?";
    self.set(name, (self.get(name) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  }
  return [...self].sort((a, b) => b[1] - a[1]);
}

/**
 * COUNT accounts named PREFIX0, PREFIX1… inserted directly in one transaction, without
 * passwords (no hashing: a benchmark signs them in by making sessions); their ids in order.
 */
export async function insertAccounts(db: Db, prefix: string, count: number, now: number): Promise<number[]> {
  const ids: number[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const row = await trx
        .insertInto("users")
        .values({
          cuid: newCuid(),
          email: null,
          username: `${prefix}${i}`,
          username_lower: `${prefix}${i}`.toLowerCase(),
          display_name: `${prefix} ${i}`,
          password_hash: null,
          created_at: now,
          updated_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
  });
  return ids;
}
