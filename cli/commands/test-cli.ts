import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/testing/cli";

/** Test helpers: run socialctl in child processes against a temporary data dir. */
export { CLI } from "../../src/testing/cli";

export function cliHarness() {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "socialctl-cli-"));
    dirs.push(d);
    return d;
  };
  const dataDir = tmp();

  /** Runs socialctl in a child process, as an operator would. */
  const run = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

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
