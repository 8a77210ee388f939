import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SOCIALCTL, runCli } from "../src/testing/cli";

/*
 * Progress bars are drawn only on a terminal; script(1) gives the CLI one, as an operator's
 * shell would. Without a terminal and with --json the output stays exactly as before.
 */
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "socialctl-progress-"));
  expect((await runCli(["--data-dir", join(dir, "data"), "init", "--yes"])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onTerminal(...args: string[]): Promise<string> {
  const line = [...SOCIALCTL, "--data-dir", join(dir, "data"), ...args].map((a) => `'${a}'`).join(" ");
  // a terminal of a usual width (script's own has none, and bars would wrap a character a line)
  const child = Bun.spawn(["script", "-qec", `stty cols 120 rows 40; ${line}`, "/dev/null"], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { ...process.env, CI: "" },
  });
  const timer = setTimeout(() => child.kill(), 30_000);
  const [out, , code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  expect(code).toBe(0);
  return out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}

test("backup create and restore draw a bar per phase on a terminal", async () => {
  const out = await onTerminal("backup", "create", "--out", join(dir, "a.tar.gz"));
  // each phase's bar ends as a line of its own; the last one ends with the result
  // (the bar's moving frames are drawn on a timer, so a small backup may finish a phase
  // before one is drawn: the finished phases' lines are what is certain)
  for (const phase of ["◇  Snapshotting the database", "◇  Computing checksums", "◇  Backup written"])
    expect(out).toContain(phase);
  expect(out).toContain(`${join(dir, "a.tar.gz")} (`);
  const restored = await onTerminal("--data-dir", join(dir, "restored"), "backup", "restore", join(dir, "a.tar.gz"));
  expect(restored).toContain("◇  Restored");
  expect(restored).toContain("Restored the backup of");
});

test("media rebuild-derived and migrate finish with their summary on a terminal", async () => {
  expect(await onTerminal("media", "rebuild-derived")).toContain("rebuilt 0, already present 0, failed 0");
  expect(await onTerminal("migrate")).toContain("Schema is up to date.");
});

test("without a terminal, and with --json, no bar is drawn", async () => {
  const plain = await runCli(["--data-dir", join(dir, "data"), "backup", "create", "--out", join(dir, "b.tar.gz")]);
  expect(plain.code).toBe(0);
  expect(plain.stdout + plain.stderr).not.toContain("Compressing");
  const json = await runCli([
    "--data-dir",
    join(dir, "data"),
    "--json",
    "backup",
    "create",
    "--out",
    join(dir, "c.tar.gz"),
  ]);
  expect(json.stdout.trim().split("\n")).toHaveLength(1);
  expect(json.json.path).toBe(join(dir, "c.tar.gz"));
});
