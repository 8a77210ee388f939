#!/usr/bin/env bun
/**
 * Start-up benchmark of the compiled binary (not a test): time from spawning `socialctl serve`
 * to its first successful HTTP response, and its resident memory once idle, next to a compiled
 * hello-world `Bun.serve` built with the same flags and measured in the same run, alternating.
 *
 *   bun scripts/bench-start.ts [--runs 7] [--settle-ms 3000] [--no-build] [--binary PATH] [--before PATH]
 *
 * --binary measures another build (e.g. one of an older commit) instead of building dist/socialctl;
 * --before also measures an older build, alternating with the new one run by run, so both see
 * the same load. Besides the time, each row shows the CPU time the process had used when it
 * answered (from /proc, 10 ms ticks): on a busy machine the wall time follows the load, the CPU
 * time much less.
 *
 * Each run of socialctl starts on an empty data dir (serve initialises it: config, secrets,
 * migrations) and, apart from that, on a data dir initialised beforehand (a restart). The
 * clock starts just before the spawn; the poll of `/healthz` is a tight loop of 1 ms sleeps
 * (bounded: 15 s). Right after it, socialctl gets its first Client API request (`GET
 * /api/auth/me`, signed out: 401), timed on its own: that request builds the Client API's part
 * under /api/auth, which a start leaves for later (each part is built on the first request under
 * its prefix). Loopback only; every process is stopped and every data dir removed.
 *
 * Before the runs every binary's pages are dropped from the page cache (`dd iflag=nocache`, one
 * file's clean pages, nothing else): a fault also maps the pages around it that are already
 * cached (the kernel's fault-around), so how much of the executable a process maps depends on
 * how its pages came into the cache. A binary the build has just written has every page cached;
 * one read back from disk, as a deployed binary is, only what its reads brought in. The same
 * build idles at clearly more memory just written than read back, so a fresh build against an
 * older one would compare builds and caches at once.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { arg, processCpuSeconds, processMemory } from "./bench-lib";
import { buildBinary, freePort } from "./smoke-binary";

const root = resolve(import.meta.dir, "..");
const HELLO_SOURCE = `
const server = Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });
`;

interface Sample {
  firstMs: number;
  /** CPU time (user + system) of the process when its first response arrived */
  cpuMs: number;
  rssMiB: number;
  /** the request made right after the first response (socialctl's first Client API request): its time and CPU */
  nextMs?: number;
  nextCpuMs?: number;
}

/** Spawns ARGV, times the first 200 from URL, then one request to NEXT if given, waits SETTLE_MS, reads the RSS, stops it. */
async function measure(argv: string[], url: string, settleMs: number, next?: string): Promise<Sample> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore", stdin: "ignore" });
  try {
    let firstMs = NaN;
    let cpuMs = NaN;
    const deadline = t0 + 15_000;
    while (performance.now() < deadline && proc.exitCode === null) {
      try {
        const res = await fetch(url);
        if (res.ok) {
          firstMs = performance.now() - t0;
          cpuMs = processCpuSeconds(proc.pid) * 1000;
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(1);
    }
    if (Number.isNaN(firstMs)) throw new Error(`${argv.join(" ")} did not answer ${url} within 15 s`);
    let after: Pick<Sample, "nextMs" | "nextCpuMs"> = {};
    if (next) {
      const t1 = performance.now();
      await (await fetch(next)).arrayBuffer();
      after = { nextMs: performance.now() - t1, nextCpuMs: processCpuSeconds(proc.pid) * 1000 - cpuMs };
    }
    await Bun.sleep(settleMs);
    return { firstMs, cpuMs, rssMiB: processMemory(proc.pid).rss / 1024 / 1024, ...after };
  } finally {
    proc.kill("SIGTERM");
    await Promise.race([proc.exited, Bun.sleep(10_000)]);
    proc.kill("SIGKILL");
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const runs = Math.max(1, Math.min(50, Number(arg("runs", "7"))));
  const settleMs = Math.max(0, Math.min(30_000, Number(arg("settle-ms", "3000"))));
  const other = arg("binary", "");
  const binary = other ? resolve(other) : join(root, "dist", "socialctl");
  if (!other && !process.argv.includes("--no-build")) await buildBinary();
  const work = mkdtempSync(join(tmpdir(), "socialctl-bench-start-"));
  try {
    const hello = join(work, "hello");
    writeFileSync(join(work, "hello.ts"), HELLO_SOURCE);
    const built = await Bun.build({
      entrypoints: [join(work, "hello.ts")],
      compile: { outfile: hello, autoloadDotenv: false, autoloadBunfig: false },
      bytecode: true,
      format: "esm",
    });
    if (!built.success) throw new AggregateError(built.logs, "the hello-world reference did not build");

    const before = arg("before", "");
    const builds: Array<{ name: string; path: string }> = [
      ...(before ? [{ name: "before", path: resolve(before) }] : []),
      { name: before ? "after" : "socialctl", path: binary },
    ];
    for (const path of [hello, ...builds.map((b) => b.path)]) dropFromPageCache(path);
    const samples = new Map<string, Sample[]>([["hello", []]]);
    const add = (key: string, s: Sample) => samples.set(key, [...(samples.get(key) ?? []), s]);
    const show = (s: Sample) =>
      `${s.firstMs.toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)})${s.nextMs === undefined ? "" : ` then ${s.nextMs.toFixed(0)} ms`} ${s.rssMiB.toFixed(1)} MiB`;
    for (let run = 1; run <= runs; run++) {
      let port = await freePort();
      add("hello", await measure([hello, String(port)], `http://127.0.0.1:${port}/`, settleMs));
      const line = [`run ${run}: hello ${show(samples.get("hello")!.at(-1)!)}`];
      for (const build of builds) {
        const serve = (dir: string) => [
          build.path,
          "--data-dir",
          dir,
          "serve",
          "--port",
          String(port),
          "--host",
          "127.0.0.1",
        ];
        const empty = join(work, `${build.name}-empty-${run}`);
        port = await freePort();
        const base = () => `http://127.0.0.1:${port}`;
        add(
          `${build.name}: empty data dir`,
          await measure(serve(empty), `${base()}/healthz`, settleMs, `${base()}/api/auth/me`),
        );

        const initialised = join(work, `${build.name}-init-${run}`);
        port = await freePort();
        const init = Bun.spawnSync([build.path, "--data-dir", initialised, "init", "--yes", "--port", String(port)]);
        if (init.exitCode !== 0) throw new Error(`init failed: ${init.stderr.toString()}`);
        add(
          `${build.name}: initialised data dir`,
          await measure(serve(initialised), `${base()}/healthz`, settleMs, `${base()}/api/auth/me`),
        );
        line.push(
          `${build.name}: empty dir ${show(samples.get(`${build.name}: empty data dir`)!.at(-1)!)}, ` +
            `initialised ${show(samples.get(`${build.name}: initialised data dir`)!.at(-1)!)}`,
        );
      }
      console.log(line.join(" · "));
    }

    const hellos = samples.get("hello")!;
    const helloFirst = median(hellos.map((s) => s.firstMs));
    const helloRss = median(hellos.map((s) => s.rssMiB));
    console.log(`\n${runs} runs, medians; idle RSS ${settleMs} ms after the first response; load: ${loadAverage()}\n`);
    console.log(
      "| binary | first response ms (min–max) | × hello | CPU ms at first response | first Client API request ms (CPU ms) | idle RSS MiB | × hello |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const [key, s] of samples) {
      const name = key === "hello" ? "compiled hello-world Bun.serve (reference)" : key;
      const first = s.map((x) => x.firstMs);
      const rss = median(s.map((x) => x.rssMiB));
      const next =
        s[0]?.nextMs === undefined
          ? "–"
          : `${median(s.map((x) => x.nextMs!)).toFixed(1)} (${median(s.map((x) => x.nextCpuMs!)).toFixed(0)})`;
      console.log(
        `| ${name} | ${median(first).toFixed(0)} (${Math.min(...first).toFixed(0)}–${Math.max(...first).toFixed(0)}) | ${(median(first) / helloFirst).toFixed(1)} | ${median(s.map((x) => x.cpuMs)).toFixed(0)} | ${next} | ${rss.toFixed(1)} | ${(rss / helloRss).toFixed(1)} |`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Drops PATH's pages from the page cache (posix_fadvise DONTNEED through dd), so it is read back
 * from disk; written out first, as a file just built still has dirty pages, which stay cached.
 */
function dropFromPageCache(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dd = Bun.spawnSync(["dd", `if=${path}`, "iflag=nocache", "count=0", "status=none"]);
  if (dd.exitCode !== 0) console.warn(`could not drop ${path} from the page cache: ${dd.stderr.toString().trim()}`);
}

const loadAverage = () =>
  Bun.spawnSync(["uptime"])
    .stdout.toString()
    .trim()
    .replace(/.*load average: /, "");

if (import.meta.main) await main();
