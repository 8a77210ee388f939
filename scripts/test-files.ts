import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Which test files make each part of the suite, by rules on the files themselves (where they
 * live, what their imports reach), so a new test file joins its part without anyone listing it.
 * `bun scripts/test-files.ts` prints every part's files.
 */

export const ROOT = resolve(import.meta.dir, "..");

/** Every test file, relative to ROOT, sorted. */
export function allTestFiles(): string[] {
  return [...new Bun.Glob("{src,cli,scripts}/**/*.test.{ts,tsx}").scanSync(ROOT)].sort();
}

const scanners = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

/**
 * Relative imports of FILE that remain at run time (type-only ones are erased), resolved to
 * files; dynamic ones (`await import(…)`) only with DYNAMIC.
 */
function runtimeImports(file: string, dynamic: boolean): string[] {
  // a shebang line is not TypeScript to the scanner
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const scanner = file.endsWith(".tsx") ? scanners.tsx : scanners.ts;
  const found: string[] = [];
  for (const { path, kind } of scanner.scanImports(source)) {
    if (!path.startsWith(".") || (kind === "dynamic-import" && !dynamic)) continue;
    const base = resolve(dirname(file), path);
    const hit = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find(
      (p) => /\.tsx?$/.test(p) && existsSync(p),
    );
    if (hit) found.push(hit);
  }
  return found;
}

/**
 * Whether the test file FILE (relative to ROOT) loads one of SEAMS: through its own imports
 * (static, or dynamic in a test's body) and the static imports of what they load. A module a
 * helper loads only on a condition (the PostgreSQL helpers, on the PostgreSQL run only) is not
 * counted.
 */
export function reaches(file: string, seams: readonly string[]): boolean {
  const targets = new Set(seams.map((s) => join(ROOT, s)));
  const start = join(ROOT, file);
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    if (targets.has(next)) return true;
    todo.push(...runtimeImports(next, next === start));
  }
  return false;
}

/** Browser tests: Chromium driven by playwright-core (src/testing/browser.ts). */
export const BROWSER_DIR = "src/web-tests/";

/** What in a file's text starts a process or a listener. */
const OUT_OF_PROCESS = /\bBun\.spawn(Sync)?\(|\bspawn(Sync)?\(|\bexecFile(Sync)?\(|\bBun\.serve\(|\.listen\(/;

/** Starts nothing a test waits on: the watcher that cleans up after the test process (src/testing/process-end.ts). */
const CLEANUP_ONLY = ["src/testing/process-end.ts"];

/**
 * What starts something outside the test's process: a server on a port (src/main.ts, which
 * src/testing/server.ts starts), and every test helper whose text starts a process or a
 * listener (`socialctl` in a child process, a PostgreSQL cluster, Chromium, Redis, an SMTP or
 * S3 stand-in, a bot library's program).
 */
function outOfProcessSeams(): string[] {
  const helpers = [...new Bun.Glob("src/testing/**/*.{ts,tsx}").scanSync(ROOT)].filter(
    (f) => !CLEANUP_ONLY.includes(f) && OUT_OF_PROCESS.test(readFileSync(join(ROOT, f), "utf8")),
  );
  return ["src/main.ts", ...helpers];
}

/**
 * Whether the test file FILE runs in process: not a browser test, starting no process and no
 * listener itself and reaching no helper that does (outOfProcessSeams). The fast part.
 */
export function runsInProcess(file: string, seams = outOfProcessSeams()): boolean {
  if (file.startsWith(BROWSER_DIR)) return false;
  if (OUT_OF_PROCESS.test(readFileSync(join(ROOT, file), "utf8"))) return false;
  return !reaches(file, seams);
}

/**
 * The places a test gets an instance (a server, a CLI's data dir, an app called in process):
 * SOCIAL_TEST_DATABASE=postgres puts each on a fresh PostgreSQL database. A test file reaching
 * one is storage-dependent, run again on PostgreSQL unless POSTGRES_EXCLUDED names it.
 */
export const INSTANCE_SEAMS = ["src/testing/server.ts", "src/testing/cli.ts", "src/testing/in-process.ts"];

const WIRE =
  "what a bot library sees on the wire; the same methods' storage runs on PostgreSQL in the methods, updates, delivery and webhooks tests";
const HTTP_LAYER = "the HTTP layer, answered before the storage is asked";

/** The storage-dependent test files (or folders, ending in /) that are not run again on PostgreSQL, each with why. */
export const POSTGRES_EXCLUDED: Record<string, string> = {
  "src/web-tests/": "browser tests (Chromium) stay on SQLite: the pages' behaviour does not depend on the engine",
  "src/cluster/three-nodes.test.ts": "runs on PostgreSQL already (its own nodes and database)",
  "src/jobs/two-nodes.test.ts": "runs on PostgreSQL already (two nodes on a database of its own)",
  "src/ops/postgres-ops.test.ts": "PostgreSQL's backup, restore, status and doctor, already on PostgreSQL",
  "src/ops/backup.test.ts":
    "the SQLite archive (VACUUM INTO while writing, integrity_check); PostgreSQL's pg_dump archive is postgres-ops.test.ts",
  "cli/commands/init.test.ts": "creates data dirs of its own and checks the SQLite file it makes",
  "cli/commands/config.test.ts": "config files and data dirs of its own; the SQLite file `init` makes",
  "cli/commands/serve.test.ts": "the SQLite file's WAL and locking under `serve`",
  "cli/progress.test.ts": "a terminal's progress output over a SQLite migration",
  "cli/commands/dev.test.ts": "`socialctl dev` makes a SQLite instance of its own in a data dir it makes",
  "cli/commands/dev-examples.test.ts": "the example bots' suites start `socialctl dev`, a SQLite instance of its own",
  "src/domain/chats/send-statements.test.ts":
    "pins SQLite's statement counts; PostgreSQL runs more where a bot's token is read (no cache there), its queue locked or a message's seq taken",
  "cli/commands/doctor.test.ts":
    "SQLite's checks (the file's integrity and permissions, free disk); PostgreSQL's are in postgres-ops.test.ts",
  "src/botapi/grammy.test.ts": WIRE,
  "src/botapi/ntba.test.ts": WIRE,
  "src/botapi/ptb.test.ts": WIRE,
  "src/botapi/telebot.test.ts": WIRE,
  "src/botapi/telegraf.test.ts": WIRE,
  "src/botapi/examples.test.ts": WIRE,
  "src/botapi/snippets.test.ts": WIRE,
  "src/botapi/reference.test.ts": "the Bot API's OpenAPI document, made from the method table",
  "src/clientapi/openapi.test.ts": "the Client API's OpenAPI document, made from the routes' schemas",
  "src/botapi/ssrf.test.ts": "webhook addresses classified before anything is stored",
  "src/botapi/token-paths.test.ts": "what the request log writes of a token's path",
  "src/http/body-limits.test.ts": HTTP_LAYER,
  "src/http/http.test.ts": HTTP_LAYER,
  "src/http/lazy-surface.test.ts": HTTP_LAYER,
  "src/http/per-address-limits.test.ts": "per-address budgets, kept in memory (or Redis), never in the database",
  "src/http/request-log.test.ts": HTTP_LAYER,
  "src/http/untrusted-proxy.test.ts": HTTP_LAYER,
  "src/http/web-app.test.ts": "the web app's files, served from the build",
  "src/http/pwa.test.ts": "the manifest, icons and service worker, made from the build and an uploaded image",
  "src/clientapi/uploads/limits.test.ts": "upload sizes, refused or taken as the bytes arrive, before a row is written",
  "src/media/renditions.test.ts": "image copies made by sharp; the rows they go in are in the uploads tests",
  "src/ops/control.test.ts": "file modes of the data dir and the control socket",
};

const postgresExcluded = (file: string) =>
  Object.keys(POSTGRES_EXCLUDED).some((e) => (e.endsWith("/") ? file.startsWith(e) : file === e));

/** The parts of the suite, each a set of test files; `postgres` runs its files with SOCIAL_TEST_DATABASE=postgres. */
export const PARTS = {
  /** in process: no server on a port, no child process, no browser; the first answer */
  fast: (files: string[]) => {
    const seams = outOfProcessSeams();
    return files.filter((f) => runsInProcess(f, seams));
  },
  /** everything else on SQLite but the browser: real servers, `socialctl` in child processes, bot libraries */
  server: (files: string[]) => {
    const seams = outOfProcessSeams();
    return files.filter((f) => !f.startsWith(BROWSER_DIR) && !runsInProcess(f, seams));
  },
  /** Chromium against real servers */
  browser: (files: string[]) => files.filter((f) => f.startsWith(BROWSER_DIR)),
  /** the storage-dependent files again, on PostgreSQL */
  postgres: (files: string[]) => files.filter((f) => !postgresExcluded(f) && reaches(f, INSTANCE_SEAMS)),
} satisfies Record<string, (files: string[]) => string[]>;

export type PartName = keyof typeof PARTS;

if (import.meta.main) {
  const files = allTestFiles();
  for (const [name, select] of Object.entries(PARTS)) {
    const chosen = select(files);
    console.log(`${name} (${chosen.length} files):`);
    for (const f of chosen) console.log(`  ${f}`);
  }
}
