import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SOCIALCTL, CLI_PROCESS_BOUND_MS, cliHarness } from "../../src/testing/cli";

const { tmp, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

/** The environment without CI, so only the TTY question decides whether init prompts. */
const envWithoutCi = () => {
  const env = { ...process.env };
  delete env.CI;
  return env;
};

const script = Bun.which("script");

/**
 * `socialctl init` on a pseudo-terminal from util-linux `script`, answered keystroke by keystroke
 * as a person would; `waitFor` reads the terminal until a text shows up (bounded by a timer).
 */
function initOnTty(dataDir: string) {
  const cmd = `stty cols 120 rows 40; exec ${SOCIALCTL.join(" ")} --data-dir ${dataDir} init`;
  const p = Bun.spawn([script!, "-qfec", cmd, "/dev/null"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: envWithoutCi(),
  });
  const timer = setTimeout(() => p.kill(), 25_000);
  const reader = p.stdout.getReader();
  let screen = "";
  return {
    /** the text shown since the last waitFor, and up to TEXT */
    async waitFor(text: string): Promise<string> {
      while (!screen.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`init ended before showing "${text}":\n${screen}`);
        screen += new TextDecoder().decode(value);
      }
      const shown = screen.slice(0, screen.indexOf(text) + text.length);
      screen = screen.slice(shown.length);
      return shown;
    },
    async type(keys: string) {
      p.stdin.write(keys);
      await p.stdin.flush();
    },
    async exited() {
      await p.stdin.end();
      const code = await p.exited;
      clearTimeout(timer);
      return code;
    },
  };
}
const ENTER = "\r";
const BACKSPACE = "\x7f";
const cliJson = (dataDir: string, ...args: string[]) =>
  JSON.parse(
    Bun.spawnSync([...SOCIALCTL, "--data-dir", dataDir, "--json", ...args], {
      stdin: "ignore",
    }).stdout.toString(),
  );

describe("socialctl init", () => {
  test("without a TTY it never prompts, even without --yes", async () => {
    const dataDir = tmp();
    // stdin is an open pipe nobody writes to: a prompt would wait forever
    const p = Bun.spawn([...SOCIALCTL, "--data-dir", dataDir, "--json", "init"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: envWithoutCi(),
    });
    const timer = setTimeout(() => p.kill(), CLI_PROCESS_BOUND_MS);
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ dataDir, created: true, baseUrl: "http://127.0.0.1:3000" });
    expect(existsSync(join(dataDir, "social.db"))).toBe(true);
  });

  test.skipIf(!script)("on a TTY it asks with @clack/prompts, including a first admin", async () => {
    const dataDir = tmp();
    const { waitFor, type, exited } = initOnTty(dataDir);
    await waitFor("Port to listen on");
    await type(BACKSPACE.repeat(4) + "4321" + ENTER);
    await waitFor("Public base URL");
    await type(BACKSPACE.repeat(40) + "https://social.example.test" + ENTER);
    await waitFor("Who may register?");
    await type("\x1b[B" + ENTER); // arrow down: "Anyone" (open)
    await waitFor("Create an admin account now?");
    await type(ENTER); // yes
    await waitFor("Admin e-mail");
    await type("root@example.test" + ENTER);
    await waitFor("Admin username");
    await type("chief" + ENTER);
    await waitFor("Admin password");
    await type("chief password" + ENTER);
    await waitFor("Initialised");
    expect(await exited()).toBe(0);

    expect(cliJson(dataDir, "user", "list").users).toEqual([
      expect.objectContaining({ username: "chief", email: "root@example.test", admin: true }),
    ]);
    expect(cliJson(dataDir, "config", "get")).toMatchObject({
      port: 4321,
      baseUrl: "https://social.example.test",
      registration: "open",
    });
  });

  test.skipIf(!script)(
    "on an existing instance it proposes the current values, and a refused admin writes nothing",
    async () => {
      const dataDir = tmp();
      const made = Bun.spawnSync(
        [...SOCIALCTL, "--data-dir", dataDir, "init", "--yes", "--port", "4100", "--registration", "open"],
        { stdin: "ignore" },
      );
      expect(made.exitCode).toBe(0);
      // no admin yet: init says how to make the first one
      expect(made.stdout.toString()).toContain("user grant-admin <username>");
      const before = readFileSync(join(dataDir, "config"), "utf8");
      const created = Bun.spawnSync(
        [...SOCIALCTL, "--data-dir", dataDir, "user", "create", "--email", "chief@example.test"].concat([
          "--username",
          "chief",
          "--password",
          "chief password",
          "--admin",
        ]),
        { stdin: "ignore" },
      );
      expect(created.exitCode).toBe(0);

      const { waitFor, type, exited } = initOnTty(dataDir);
      // the current values are proposed: Enter keeps them
      expect(await waitFor("Port to listen on")).toBeTruthy();
      expect(await waitFor("4100")).toBeTruthy();
      await type(BACKSPACE.repeat(4) + "4999" + ENTER);
      await waitFor("Public base URL");
      await waitFor("http://127.0.0.1:4999");
      await type(ENTER);
      await waitFor("Who may register?");
      await type(ENTER);
      // an admin exists: another one is offered, not proposed
      await waitFor("Create another admin account now?");
      await type("y"); // clack takes y at once
      await waitFor("Admin e-mail");
      await type("second@example.test" + ENTER);
      await waitFor("Admin username");
      await type("chief" + ENTER);
      await waitFor("Admin password");
      await type("second password" + ENTER);
      await waitFor("username is taken");
      expect(await exited()).not.toBe(0);
      // the new port was not written: the refusal came first
      expect(readFileSync(join(dataDir, "config"), "utf8")).toBe(before);
      expect(cliJson(dataDir, "config", "get")).toMatchObject({ port: 4100, registration: "open" });
    },
  );
});
