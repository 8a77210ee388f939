import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The storage-dependent tests again, on PostgreSQL: SOCIAL_TEST_DATABASE=postgres makes every
 * test server (src/testing/server.ts) and every CLI test's data dir (src/testing/cli.ts) use a
 * fresh database on one throwaway cluster (src/testing/postgres.ts), copied from a migrated
 * template (CREATE DATABASE … TEMPLATE: a file copy, not the migrations again).
 *
 * Which files: by a rule, so a new test is covered without anyone listing it. A test file is
 * storage-dependent when its runtime imports (type-only ones are erased) reach one of SEAMS,
 * the only places a test gets an instance; EXCLUDED lists the exceptions, each with its reason.
 * `--list` prints the selection; file arguments replace it.
 */
const SEAMS = ["src/testing/server.ts", "src/testing/cli.ts"];

const EXCLUDED: Record<string, string> = {
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
};

const ROOT = resolve(import.meta.dir, "..");
const scanners = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

/** Relative imports of FILE that remain at run time, resolved to files. */
function runtimeImports(file: string): string[] {
  // a shebang line is not TypeScript to the scanner
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const scanner = file.endsWith(".tsx") ? scanners.tsx : scanners.ts;
  const found: string[] = [];
  for (const { path } of scanner.scanImports(source)) {
    if (!path.startsWith(".")) continue;
    const base = resolve(dirname(file), path);
    const hit = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find(
      (p) => /\.tsx?$/.test(p) && existsSync(p),
    );
    if (hit) found.push(hit);
  }
  return found;
}

/** Whether FILE's import graph reaches one of SEAMS. */
function reachesSeam(file: string): boolean {
  const seams = new Set(SEAMS.map((s) => join(ROOT, s)));
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    if (seams.has(next)) return true;
    todo.push(...runtimeImports(next));
  }
  return false;
}

const excluded = (file: string) =>
  Object.keys(EXCLUDED).some((e) => (e.endsWith("/") ? file.startsWith(e) : file === e));

function storageDependentTests(): string[] {
  const files = [...new Bun.Glob("{src,cli}/**/*.test.{ts,tsx}").scanSync(ROOT)].sort();
  return files.filter((f) => !excluded(f) && reachesSeam(join(ROOT, f)));
}

const args = process.argv.slice(2);
if (args[0] === "--list") {
  const files = storageDependentTests();
  for (const f of files) console.log(f);
  console.log(`${files.length} files; excluded:`);
  for (const [f, why] of Object.entries(EXCLUDED)) console.log(`  ${f}: ${why}`);
  process.exit(0);
}
const files = args.length ? args : storageDependentTests().map((f) => relative(process.cwd(), join(ROOT, f)));
const proc = Bun.spawn(["bun", "test", "--timeout", "30000", ...files], {
  env: { ...process.env, SOCIAL_TEST_DATABASE: "postgres" },
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
