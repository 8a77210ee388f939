import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openApp } from "../../src/wiring";
import { silentLogger } from "../../src/lib/log";
import { verifyPassword } from "../../src/lib/crypto";
import { SOCIALCTL, CLI_PROCESS_BOUND_MS, runCli } from "../../src/testing/cli";

/* A password in argv shows in `ps`: without --password, user create asks on a terminal or reads stdin. */
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "socialctl-password-"));
  expect((await runCli(["--data-dir", dir, "init", "--yes"])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function passwordWorks(username: string, password: string): Promise<boolean> {
  const app = await openApp({ dataDir: dir, log: silentLogger });
  try {
    const row = await app.db
      .selectFrom("users")
      .select("password_hash")
      .where("username", "=", username)
      .executeTakeFirstOrThrow();
    return verifyPassword(password, row.password_hash!);
  } finally {
    await app.close();
  }
}

test("read from stdin when it is not a terminal", async () => {
  const child = Bun.spawn(
    [
      ...SOCIALCTL,
      "--data-dir",
      dir,
      "--json",
      "user",
      "create",
      "--email",
      "pipe@example.test",
      "--username",
      "piped",
    ],
    {
      stdin: new TextEncoder().encode("from stdin 123\n"),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, CI: "1" },
    },
  );
  const [out, , code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  expect(code).toBe(0);
  expect(JSON.parse(out)).toMatchObject({ username: "piped" });
  expect(await passwordWorks("piped", "from stdin 123")).toBe(true);
});

test("asked for on a terminal, without echo", async () => {
  const line = [...SOCIALCTL, "--data-dir", dir, "user", "create", "--email", "tty@example.test", "--username", "typed"]
    .map((a) => `'${a}'`)
    .join(" ");
  const child = Bun.spawn(["script", "-qec", `stty cols 120 rows 40; ${line}`, "/dev/null"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, CI: "" },
  });
  const timer = setTimeout(() => child.kill(), CLI_PROCESS_BOUND_MS);
  // type once the prompt is up
  const reader = child.stdout.getReader();
  let screen = "";
  while (!screen.includes("Password for typed")) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += new TextDecoder().decode(value);
  }
  child.stdin.write("typed secret 42\r");
  await child.stdin.flush();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += new TextDecoder().decode(value);
  }
  clearTimeout(timer);
  expect(await child.exited).toBe(0);
  expect(screen).toContain("Created typed <tty@example.test>");
  expect(screen).not.toContain("typed secret 42");
  expect(await passwordWorks("typed", "typed secret 42")).toBe(true);
});
