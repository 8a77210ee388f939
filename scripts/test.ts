import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative } from "node:path";
import { RUN_CLUSTER_ENV, startRunCluster } from "../src/testing/postgres";
import { PARTS, POSTGRES_EXCLUDED, ROOT, allTestFiles, reaches, type PartName } from "./test-files";

/**
 * `npm test`: the whole suite, as parts that also run alone (`bun scripts/test.ts PART… [FILE…]`,
 * `npm run test:fast` and the like; docs/development.md):
 *
 *   check     the typecheck and Prettier's check
 *   fast      test files that run in process (scripts/test-files.ts says which): the first answer
 *   server    the other test files on SQLite: real servers, `socialctl` in child processes, bot libraries
 *   browser   src/web-tests/: Chromium against real servers
 *   postgres  the storage-dependent test files again, on PostgreSQL
 *
 * check runs from the start beside the rest; fast runs first (the first answer); then server,
 * postgres and browser side by side: run after the others on one worker, the browser part was
 * the run's longest phase, and postgres ended alone on one worker before it; side by side,
 * each part's waits (a browser's clock, a server's timer, a child process) leave the cores to
 * the others. Each test part is one `bun test` spreading its files over worker processes
 * (`--parallel`, each worker keeping its modules between files, so the migrated SQLite
 * template is made once per worker; one PostgreSQL cluster, its template migrated once, serves
 * the whole run); each worker starts the slowest files first by the durations of the last run
 * (.tmp/test-timings/). A part alone streams its output; parts side by side are printed each
 * in one piece when it ends, with failing tests named as they fail. The end is a table of the
 * parts (files, passed and failed tests, wall time, and the CPU time of the part's processes
 * with all they started and waited for; a PostgreSQL server's and Chromium's renderers' are not
 * in it, the machine's CPU over the run on the total line is) and the exit
 * status is non-zero when any part failed. Bun's own " N pass" / " N fail" lines stay in the
 * output, one pair per test part, for .ci/run to add up.
 *
 * FILE arguments replace a test part's selection (several parts: each keeps the files of its own).
 * TEST_WORKERS sets the worker processes of each test part (default: see `workers`).
 */

const TEST_PARTS = ["fast", "server", "browser", "postgres"] as const satisfies readonly PartName[];
type Name = "check" | PartName;
const ALL: readonly Name[] = ["check", ...TEST_PARTS];
/** The test parts, one phase after the other, the parts of a phase side by side; check runs beside them from the start. */
const PHASES: readonly (readonly PartName[])[] = [["fast"], ["server", "postgres", "browser"]];

const TIMINGS = join(ROOT, ".tmp/test-timings");
const LOGS = join(ROOT, ".tmp/test-logs");

interface Outcome {
  /** a part, or the build of the run's binary */
  name: Name | "build";
  files: number;
  pass: number;
  fail: number;
  code: number;
  wallMs: number;
  /** CPU time (user and system) of the part's processes and of every process they started and waited for */
  cpuMs: number;
  failures: string[];
}

/**
 * Worker processes of test part NAME: TEST_WORKERS, else the machine's cores for fast and
 * server, half of them for the browser (Chromium's own processes) and for PostgreSQL (its
 * server's). Side by side, the three then keep every core busy to the end without starving
 * the tests that bound their own waits (a CLI process's 60 s, a browser's 10 s per step): a
 * worker per core for each part overloads a 2-core machine until those run out of time.
 */
function workers(name: Name): number {
  const set = Number(process.env.TEST_WORKERS);
  if (Number.isInteger(set) && set > 0) return set;
  const cores = availableParallelism();
  return name === "browser" || name === "postgres" ? Math.ceil(cores / 2) : cores;
}

/** The commands a part runs one after the other, with its environment. */
function commands(name: Name, files: string[]): { argv: string[]; env: Record<string, string | undefined> }[] {
  if (name === "check")
    return [
      { argv: ["bun", "run", "typecheck"], env: {} },
      { argv: ["bun", "run", "format:check"], env: {} },
    ];
  const n = workers(name);
  const timings = join(TIMINGS, `${name}.json`);
  const parallel = n > 1 ? [`--parallel=${n}`, "--no-isolate", `--timings=${timings}`, "--update-timings"] : [];
  return [
    {
      // "./": a path, not a name filter that would also match longer paths ending in it
      argv: ["bun", "test", "--timeout", "30000", ...parallel, ...files.map((f) => `./${f}`)],
      env: { SOCIAL_TEST_DATABASE: name === "postgres" ? "postgres" : undefined },
    },
  ];
}

const seconds = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
};

/** Runs part NAME on FILES; LIVE streams its output, otherwise it is printed in one piece at the end. */
async function runPart(name: Name, files: string[], live: boolean): Promise<Outcome> {
  const started = performance.now();
  const outcome: Outcome = { name, files: files.length, pass: 0, fail: 0, code: 0, wallMs: 0, cpuMs: 0, failures: [] };
  if (name !== "check" && files.length === 0) {
    console.log(`${name}: no test files`);
    return outcome;
  }
  mkdirSync(TIMINGS, { recursive: true });
  mkdirSync(LOGS, { recursive: true });
  let log = "";
  const note = (text: string) => {
    log += text;
    if (live) process.stdout.write(text);
  };
  if (!live)
    console.log(`${name}: started${name === "check" ? "" : ` (${files.length} files, ${workers(name)} workers)`}`);
  for (const { argv, env } of commands(name, files)) {
    const merged: Record<string, string | undefined> = { ...process.env, ...env };
    // piped, bun would drop its colours; a terminal reading this keeps them
    if (process.stdout.isTTY) merged.FORCE_COLOR = "1";
    const proc = Bun.spawn(argv, {
      cwd: ROOT,
      env: Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let partial = "";
    const onLine = (line: string) => {
      const pass = /^\s*(\d+) pass$/.exec(line);
      const fail = /^\s*(\d+) fail$/.exec(line);
      if (pass) outcome.pass += Number(pass[1]);
      if (fail) outcome.fail += Number(fail[1]);
      // bun names each failed test twice: where it fails and in its closing list
      if (/^\(fail\)/.test(line) && !outcome.failures.includes(line)) {
        outcome.failures.push(line);
        if (!live) console.log(`${name}: ${line}`);
      }
    };
    // stdout and stderr as one log, line by line in the order they come
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        const text = decoder.decode(chunk, { stream: true });
        note(text);
        const lines = (partial + text).split("\n");
        partial = lines.pop()!;
        for (const line of lines) onLine(line);
      }
    };
    await Promise.all([pump(proc.stdout), pump(proc.stderr)]);
    const code = await proc.exited;
    outcome.cpuMs += Number(proc.resourceUsage()?.cpuTime.total ?? 0n) / 1000;
    if (partial) onLine(partial);
    if (code !== 0 && outcome.code === 0) outcome.code = code;
  }
  outcome.wallMs = performance.now() - started;
  writeFileSync(join(LOGS, `${name}.log`), log);
  if (!live) {
    console.log(`\n${"=".repeat(20)} ${name} ${"=".repeat(20)}`);
    process.stdout.write(log.endsWith("\n") ? log : `${log}\n`);
  }
  console.log(
    `${name}: ${outcome.code === 0 ? "passed" : "FAILED"} in ${seconds(outcome.wallMs)}, CPU ${seconds(outcome.cpuMs)} (log: ${relative(ROOT, join(LOGS, `${name}.log`))})`,
  );
  return outcome;
}

/**
 * The CPU time the whole machine spent busy so far (every process and the kernel), from
 * /proc/stat; null where there is none. Beside the parts' own CPU it shows what they do not
 * count: processes a part starts but does not wait for (the PostgreSQL cluster's server, and
 * Chromium's renderer processes, whose zygote outlives the browser that started it).
 */
function machineBusyMs(): number | null {
  try {
    const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    const ticks = user! + nice! + system! + irq! + softirq! + steal!;
    // USER_HZ: 100 on every Linux this runs on
    return ticks * 10;
  } catch {
    return null;
  }
}

function summary(outcomes: Outcome[], wallMs: number, machineMs: number | null): string {
  const rows = outcomes.map((o) => {
    const tests = o.name !== "check" && o.name !== "build";
    return [
      o.name,
      tests ? `${o.files} files` : "",
      tests ? `${o.pass} passed` : "",
      tests ? `${o.fail} failed` : "",
      seconds(o.wallMs),
      `CPU ${seconds(o.cpuMs)}`,
      o.code === 0 ? "ok" : `FAILED (exit ${o.code})`,
    ];
  });
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join("  ")}`.trimEnd());
  const failures = outcomes.flatMap((o) => o.failures.map((f) => `  ${o.name}: ${f}`));
  return [
    "",
    `parts (${availableParallelism()} cores):`,
    ...lines,
    `  total ${seconds(wallMs)}, CPU ${seconds(outcomes.reduce((sum, o) => sum + o.cpuMs, 0))}` +
      (machineMs === null ? "" : `; the machine's CPU meanwhile ${seconds(machineMs)}`),
    ...(failures.length ? ["failed tests:", ...failures] : []),
  ].join("\n");
}

function usage(): never {
  console.error(`usage: bun scripts/test.ts [${ALL.join("|")}]… [FILE…] [--list]`);
  process.exit(2);
}

const args = process.argv.slice(2);
const list = args.includes("--list");
const names = args.filter((a) => (ALL as readonly string[]).includes(a)) as Name[];
const givenArgs = args.filter((a) => a !== "--list" && !(ALL as readonly string[]).includes(a));
if (givenArgs.some((a) => a.startsWith("-") || !/\.test\.tsx?$/.test(a))) usage();
const given = givenArgs.map((f) => relative(ROOT, join(process.cwd(), f)));
const chosen = names.length ? ALL.filter((n) => names.includes(n)) : ALL;

const everyFile = allTestFiles();
const filesOf = (name: Name): string[] => {
  if (name === "check") return [];
  const own = PARTS[name](everyFile);
  if (!given.length) return own;
  // files given: each part named takes them (one part named), or the given ones it holds
  return names.length === 1 ? given : own.filter((f) => given.includes(f));
};

if (list) {
  for (const name of chosen) {
    if (name === "check") continue;
    const files = filesOf(name);
    console.log(`${name} (${files.length} files):`);
    for (const f of files) console.log(`  ${f}`);
    if (name === "postgres" && !given.length) {
      console.log("  not on PostgreSQL:");
      for (const [f, why] of Object.entries(POSTGRES_EXCLUDED)) console.log(`    ${f}: ${why}`);
    }
  }
  process.exit(0);
}

/** Whether part NAME has test files that make PostgreSQL databases (the postgres part; server files reaching the helpers). */
const needsPostgres = (name: Name) =>
  name === "postgres" || (name === "server" && filesOf(name).some((f) => reaches(f, ["src/testing/postgres.ts"])));

/**
 * One PostgreSQL cluster for every test process of the run, its template migrated once, started
 * while the first phase runs; without PostgreSQL each test process tries its own and says why it cannot.
 */
const runCluster = chosen.some((n) => n !== "check" && n !== "fast" && needsPostgres(n))
  ? startRunCluster().then(
      (cluster) => {
        process.env[RUN_CLUSTER_ENV] = cluster.env;
        return cluster;
      },
      (err) => {
        console.warn(`no PostgreSQL cluster for the run: ${err instanceof Error ? err.message.split("\n")[0] : err}`);
        return null;
      },
    )
  : Promise.resolve(null);

/** Where the run's compiled binary goes: beside the other test artefacts, not over `npm run build`'s. */
const TEST_BINARY = join(ROOT, ".tmp/test-bin/socialctl");

/**
 * The compiled binary of this tree, built once while the first phase runs when the chosen files
 * start `socialctl` in child processes (src/testing/cli.ts) or test the binary itself: every such
 * child then runs it (SOCIAL_TEST_BINARY), as an operator does, instead of each transpiling the
 * source. A build that fails is a failed part; the tests then start the source.
 */
const usesBinary = (name: Name) =>
  name !== "check" && filesOf(name).some((f) => reaches(f, ["src/testing/cli.ts", "scripts/smoke-binary.ts"]));
const binaryBuild: Promise<Outcome | null> = chosen.some(usesBinary) ? buildTestBinary() : Promise.resolve(null);

async function buildTestBinary(): Promise<Outcome> {
  const started = performance.now();
  // each build writes source maps under new names: the last run's go first
  rmSync(dirname(TEST_BINARY), { recursive: true, force: true });
  const proc = Bun.spawn(["bun", "scripts/build.ts", "--outfile", TEST_BINARY], {
    cwd: ROOT,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const outcome: Outcome = {
    name: "build",
    files: 0,
    pass: 0,
    fail: 0,
    code,
    wallMs: performance.now() - started,
    cpuMs: Number(proc.resourceUsage()?.cpuTime.total ?? 0n) / 1000,
    failures: [],
  };
  if (code === 0) process.env.SOCIAL_TEST_BINARY = TEST_BINARY;
  else console.log(`build: FAILED (exit ${code}); socialctl's child processes start from source\n${out}${err}`);
  console.log(`build: ${code === 0 ? "built" : "FAILED"} ${relative(ROOT, TEST_BINARY)} in ${seconds(outcome.wallMs)}`);
  return outcome;
}

const t0 = performance.now();
const machineAtStart = machineBusyMs();
let checking = chosen.includes("check");
const check = checking
  ? runPart("check", [], chosen.length === 1).finally(() => {
      checking = false;
    })
  : null;
const outcomes: Outcome[] = [];
for (const phase of PHASES) {
  const parts = phase.filter((n) => chosen.includes(n));
  if (!parts.length) continue;
  if (parts.some(needsPostgres)) await runCluster;
  if (parts.some(usesBinary)) await binaryBuild;
  const alone = parts.length === 1 && !checking;
  outcomes.push(...(await Promise.all(parts.map((n) => runPart(n, filesOf(n), alone)))));
}
const built = await binaryBuild;
if (built) outcomes.unshift(built);
if (check) outcomes.unshift(await check);
(await runCluster)?.stop();
const machineAtEnd = machineBusyMs();
console.log(
  summary(
    outcomes,
    performance.now() - t0,
    machineAtStart === null || machineAtEnd === null ? null : machineAtEnd - machineAtStart,
  ),
);
process.exit(outcomes.some((o) => o.code !== 0) ? 1 : 0);
