import { expect, test } from "bun:test";
import { fileURLToPath } from "node:url";

const LOG_MODULE = fileURLToPath(new URL("./log.ts", import.meta.url));
const program = `import { createLogger } from ${JSON.stringify(LOG_MODULE)}; createLogger({ format: "auto" }).info("hello", { n: 1 });`;

/** Runs a process that logs one line with format "auto", on a pipe or (through script(1)) on a terminal. */
async function logLine(onTerminal: boolean): Promise<string> {
  const cmd = [process.execPath, "-e", program];
  const argv = onTerminal
    ? ["script", "-qec", cmd.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" "), "/dev/null"]
    : cmd;
  const child = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => child.kill(), 15_000);
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  // script(1) copies the terminal (stdout and stderr together) to its stdout
  return (onTerminal ? out : err).trim();
}

test('log.format "auto": a readable line on a terminal, JSON otherwise', async () => {
  const piped = await logLine(false);
  expect(JSON.parse(piped)).toMatchObject({ level: "info", msg: "hello", n: 1 });
  const terminal = await logLine(true);
  expect(terminal).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO hello n=1$/);
});
