import { fileURLToPath } from "node:url";
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeConfigValues } from "../config";
import { TEST_POOL } from "./instance";
import { freshPostgresDatabase, testsOnPostgres } from "./postgres";

/** The socialctl entry point, run from source by Bun. */
export const CLI = fileURLToPath(new URL("../../cli/index.ts", import.meta.url));

/**
 * The command line that starts socialctl in a test's child process: the compiled binary `npm
 * test` built from this tree for the run (SOCIAL_TEST_BINARY), else the source run by Bun, as
 * `npm start` does. A run starts hundreds of these; the binary starts without transpiling the
 * program, a fraction of the source's CPU each time.
 */
export const SOCIALCTL: readonly string[] = process.env.SOCIAL_TEST_BINARY
  ? [process.env.SOCIAL_TEST_BINARY]
  : [process.execPath, CLI];

/**
 * How long a `socialctl` child process may take before the test gives up on it: a bound for a
 * command that hangs, not a judgement of its speed, so it leaves room for a machine whose cores
 * the rest of the suite keeps busy (started from source, Bun transpiles the whole program first).
 */
export const CLI_PROCESS_BOUND_MS = 60_000;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (commands run with --json print exactly one document), else null */
  json: any;
}

/** Runs `socialctl ARGS` in a child process, as an operator would; bounded by a timeout. */
export async function runCli(args: string[], opts: { timeoutMs?: number } = {}): Promise<CliRun> {
  const child = Bun.spawn([...SOCIALCTL, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { ...process.env, CI: "1" },
  });
  const timer = setTimeout(() => child.kill(), opts.timeoutMs ?? CLI_PROCESS_BOUND_MS);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  let json: unknown = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // human output
  }
  return { code, stdout, stderr, json };
}

/** A temporary data dir and a socialctl runner bound to it, for CLI tests. */
export function cliHarness() {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "socialctl-cli-"));
    dirs.push(d);
    return d;
  };
  const dataDir = tmp();
  // SOCIAL_TEST_DATABASE=postgres: the data dir names a fresh database before the first
  // command, so `init` and every command after it (and openApp on the dir) use PostgreSQL
  const prepared = testsOnPostgres()
    ? freshPostgresDatabase().then((url) => storeConfigValues(dataDir, { "database.url": url, ...TEST_POOL }))
    : Promise.resolve();

  /** Runs socialctl in a child process, as an operator would. */
  const run = async (...args: string[]) => {
    await prepared;
    return runCli(["--data-dir", dataDir, ...args]);
  };

  /** With --json: stdout is exactly one JSON document. */
  async function runJson(...args: string[]) {
    const r = await run("--json", ...args);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    return { ...r, json: JSON.parse(lines[0]!) };
  }

  /** A failure is one line on stderr and a non-zero exit. */
  async function expectOneLineFailure(pending: Promise<{ code: number | null; stderr: string }>, pattern: RegExp) {
    const r = await pending;
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
  }

  const cleanup = () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  return { dataDir, tmp, run, runJson, expectOneLineFailure, cleanup };
}

/** Starts `socialctl serve --json` on DATADIR and a free loopback port; resolves once it printed where it listens. */
export async function startServeProcess(dataDir: string) {
  const proc = Bun.spawn(
    [...SOCIALCTL, "--data-dir", dataDir, "--json", "serve", "--port", "0", "--host", "127.0.0.1"],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const stderr = new Response(proc.stderr).text();
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + CLI_PROCESS_BOUND_MS;
  while (!out.includes("\n") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  const listening = JSON.parse(out.trim()) as { url: string; dataDir: string };
  const rest = (async () => {
    let tail = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return tail;
      tail += new TextDecoder().decode(value);
    }
  })();
  return { proc, listening, stdoutAfter: rest, stderr };
}
