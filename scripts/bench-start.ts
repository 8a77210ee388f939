#!/usr/bin/env bun
/**
 * Start-up benchmark of the compiled binary (not a test): time from spawning `socialctl serve`
 * to its first successful HTTP response, and its resident memory once idle, next to a compiled
 * hello-world `Bun.serve` built with the same flags and measured in the same run, alternating.
 *
 *   bun scripts/bench-start.ts [--runs 7] [--settle-ms 3000] [--no-build] [--binary PATH]
 *
 * --binary measures another build (e.g. one of an older commit) instead of building dist/socialctl.
 *
 * Each run of socialctl starts on an empty data dir (serve initialises it: config, secrets,
 * migrations) and, apart from that, on a data dir initialised beforehand (a restart). The
 * clock starts just before the spawn; the poll of `/healthz` is a tight loop of 1 ms sleeps
 * (bounded: 15 s). Loopback only; every process is stopped and every data dir removed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { arg, processMemory } from "./bench-lib";
import { buildBinary, freePort } from "./smoke-binary";

const root = resolve(import.meta.dir, "..");
const HELLO_SOURCE = `
const server = Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });
`;

interface Sample {
  firstMs: number;
  rssMiB: number;
}

/** Spawns ARGV, times the first 200 from URL, waits SETTLE_MS, reads the RSS, stops it. */
async function measure(argv: string[], url: string, settleMs: number): Promise<Sample> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore", stdin: "ignore" });
  try {
    let firstMs = NaN;
    const deadline = t0 + 15_000;
    while (performance.now() < deadline && proc.exitCode === null) {
      try {
        const res = await fetch(url);
        if (res.ok) {
          firstMs = performance.now() - t0;
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(1);
    }
    if (Number.isNaN(firstMs)) throw new Error(`${argv.join(" ")} did not answer ${url} within 15 s`);
    await Bun.sleep(settleMs);
    return { firstMs, rssMiB: processMemory(proc.pid).rss / 1024 / 1024 };
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

    const samples: Record<"hello" | "empty" | "initialised", Sample[]> = { hello: [], empty: [], initialised: [] };
    for (let run = 1; run <= runs; run++) {
      let port = await freePort();
      samples.hello.push(await measure([hello, String(port)], `http://127.0.0.1:${port}/`, settleMs));

      const empty = join(work, `empty-${run}`);
      port = await freePort();
      const serve = (dir: string) => [
        binary,
        "--data-dir",
        dir,
        "serve",
        "--port",
        String(port),
        "--host",
        "127.0.0.1",
      ];
      samples.empty.push(await measure(serve(empty), `http://127.0.0.1:${port}/healthz`, settleMs));

      const initialised = join(work, `init-${run}`);
      port = await freePort();
      const init = Bun.spawnSync([binary, "--data-dir", initialised, "init", "--yes", "--port", String(port)]);
      if (init.exitCode !== 0) throw new Error(`init failed: ${init.stderr.toString()}`);
      samples.initialised.push(await measure(serve(initialised), `http://127.0.0.1:${port}/healthz`, settleMs));
      const last = (k: keyof typeof samples) => samples[k].at(-1)!;
      console.log(
        `run ${run}: hello ${last("hello").firstMs.toFixed(0)} ms ${last("hello").rssMiB.toFixed(1)} MiB · ` +
          `empty dir ${last("empty").firstMs.toFixed(0)} ms ${last("empty").rssMiB.toFixed(1)} MiB · ` +
          `initialised ${last("initialised").firstMs.toFixed(0)} ms ${last("initialised").rssMiB.toFixed(1)} MiB`,
      );
    }

    const helloFirst = median(samples.hello.map((s) => s.firstMs));
    const helloRss = median(samples.hello.map((s) => s.rssMiB));
    const rows: Array<[string, Sample[]]> = [
      ["compiled hello-world Bun.serve (reference)", samples.hello],
      ["socialctl serve, empty data dir", samples.empty],
      ["socialctl serve, initialised data dir", samples.initialised],
    ];
    console.log(`\n${runs} runs, medians; idle RSS ${settleMs} ms after the first response; load: ${loadAverage()}\n`);
    console.log("| binary | first response ms (min–max) | × hello | idle RSS MiB | × hello |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [name, s] of rows) {
      const first = s.map((x) => x.firstMs);
      const rss = median(s.map((x) => x.rssMiB));
      console.log(
        `| ${name} | ${median(first).toFixed(0)} (${Math.min(...first).toFixed(0)}–${Math.max(...first).toFixed(0)}) | ${(median(first) / helloFirst).toFixed(1)} | ${rss.toFixed(1)} | ${(rss / helloRss).toFixed(1)} |`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const loadAverage = () =>
  Bun.spawnSync(["uptime"])
    .stdout.toString()
    .trim()
    .replace(/.*load average: /, "");

if (import.meta.main) await main();
