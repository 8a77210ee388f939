import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SOCIALCTL } from "../../src/testing/cli";

/*
 * The example bots' own test suites (examples/), as their developers run them, against
 * `socialctl dev` run from source: SOCIALCTL is the one thing they take from us.
 */

const EXAMPLES = join(import.meta.dir, "..", "..", "examples");
const env = { ...process.env, SOCIALCTL: `${SOCIALCTL.join(" ")}` };

async function run(cmd: string[], cwd: string) {
  const child = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => child.kill(), 170_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, output: stdout + stderr };
}

describe("the example bots' test suites", () => {
  test("grammY: bun test", async () => {
    const { code, output } = await run([process.execPath, "test"], join(EXAMPLES, "grammy"));
    expect(output).toContain(" 3 pass");
    expect(output).toContain(" 0 fail");
    expect(code).toBe(0);
  }, 180_000);

  test("python-telegram-bot: python3 -m unittest", async () => {
    // Debian's python-telegram-bot 13 lives in the system python (see src/botapi/ptb.test.ts)
    const { code, output } = await run(
      ["/usr/bin/python3", "-W", "ignore", "-m", "unittest", "-v", "test_bot.py"],
      join(EXAMPLES, "python-telegram-bot"),
    );
    expect(output).toContain("Ran 3 tests");
    expect(output).toMatch(/\nOK\n/);
    expect(code).toBe(0);
  }, 180_000);
});
