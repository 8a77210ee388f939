import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLI, cliHarness } from "../../src/testing/cli";

const { tmp, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
setDefaultTimeout(30_000);

/** The environment without CI, so only the TTY question decides whether init prompts. */
const envWithoutCi = () => {
  const env = { ...process.env };
  delete env.CI;
  return env;
};

const script = Bun.which("script");

describe("socialctl init", () => {
  test("without a TTY it never prompts, even without --yes", async () => {
    const dataDir = tmp();
    // stdin is an open pipe nobody writes to: a prompt would wait forever
    const p = Bun.spawn([process.execPath, CLI, "--data-dir", dataDir, "--json", "init"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: envWithoutCi(),
    });
    const timer = setTimeout(() => p.kill(), 20_000);
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ dataDir, created: true, baseUrl: "http://127.0.0.1:3000" });
    expect(existsSync(join(dataDir, "social.db"))).toBe(true);
  });

  // a pseudo-terminal from util-linux `script`, answered keystroke by keystroke as a person would
  test.skipIf(!script)("on a TTY it asks with @clack/prompts, including a first admin", async () => {
    const dataDir = tmp();
    const cmd = `stty cols 120 rows 40; exec ${process.execPath} ${CLI} --data-dir ${dataDir} init`;
    const p = Bun.spawn([script!, "-qfec", cmd, "/dev/null"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: envWithoutCi(),
    });
    const timer = setTimeout(() => p.kill(), 25_000);
    const reader = p.stdout.getReader();
    let screen = "";
    /** Reads the terminal until TEXT shows up (bounded by the timer above). */
    const waitFor = async (text: string) => {
      while (!screen.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`init ended before showing "${text}":\n${screen}`);
        screen += new TextDecoder().decode(value);
      }
      screen = screen.slice(screen.indexOf(text) + text.length);
    };
    const type = async (keys: string) => {
      p.stdin.write(keys);
      await p.stdin.flush();
    };
    const ENTER = "\r";
    const BACKSPACE = "\x7f";
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
    await p.stdin.end();
    const code = await p.exited;
    clearTimeout(timer);
    expect(code).toBe(0);

    const list = Bun.spawnSync([process.execPath, CLI, "--data-dir", dataDir, "--json", "user", "list"], {
      stdin: "ignore",
    });
    expect(JSON.parse(list.stdout.toString()).users).toEqual([
      expect.objectContaining({ username: "chief", email: "root@example.test", admin: true }),
    ]);
    const config = Bun.spawnSync([process.execPath, CLI, "--data-dir", dataDir, "--json", "config", "get"], {
      stdin: "ignore",
    });
    expect(JSON.parse(config.stdout.toString())).toMatchObject({
      port: 4321,
      baseUrl: "https://social.example.test",
      registration: "open",
    });
  });
});
