import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "../testing/wait";
import { createLogger } from "./log";

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

test("a JSON line holds the record's time, level and message, then its fields", () => {
  const lines: string[] = [];
  const log = createLogger({ format: "json", level: "debug", sink: (line) => lines.push(line) });
  log.info("request", { method: "GET", path: '/a"b\\c', status: 200, ms: 1.5 });
  log.warn("plain");
  log.debug("empty fields", {});
  log.error("odd", { msg: "the field's", level: 7, nested: { a: [1, null] }, gone: undefined });
  const records = lines.map((line) => JSON.parse(line));
  for (const r of records) expect(r.time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  expect(records.map(({ time: _, ...rest }) => rest)).toEqual([
    { level: "info", msg: "request", method: "GET", path: '/a"b\\c', status: 200, ms: 1.5 },
    { level: "warn", msg: "plain" },
    { level: "debug", msg: "empty fields" },
    // a field named like the record's own keys wins, once
    { level: 7, msg: "the field's", nested: { a: [1, null] } },
  ]);
  expect(Object.keys(JSON.parse(lines[0]!))).toEqual(["time", "level", "msg", "method", "path", "status", "ms"]);
  expect(lines[3]!.match(/"msg"/g)).toHaveLength(1);
});

test("while stderr's reader lags, what waits for it is bounded: lines beyond are dropped and counted, errors kept", async () => {
  const dir = mkdtempSync(join(tmpdir(), "socialctl-log-"));
  const done = join(dir, "done");
  const lines = 100_000;
  const child = Bun.spawn(
    [
      process.execPath,
      "-e",
      `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
       import { writeFileSync } from "node:fs";
       const log = createLogger({ format: "json" });
       const pad = "x".repeat(200);
       for (let i = 0; i < ${lines}; i++) {
         log.info("line", { i, pad });
         if (i === ${lines / 2}) log.error("an error while the reader lags");
         if (i % 1000 === 0) await Bun.sleep(0);
       }
       writeFileSync(${JSON.stringify(done)}, "");`,
    ],
    { stdout: "ignore", stderr: "pipe", stdin: "ignore" },
  );
  try {
    // nobody reads stderr until the child has logged everything
    await waitFor(() => existsSync(done), 60_000, "the child to finish logging");
    const out = await new Response(child.stderr).text();
    await child.exited;
    const records = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const written = records.filter((r) => r.msg === "line").length;
    const dropped = records
      .filter((r) => r.msg.startsWith("log lines dropped"))
      .reduce((n, r) => n + (r.dropped as number), 0);
    expect(dropped).toBeGreaterThan(0);
    expect(written + dropped).toBe(lines);
    expect(records.filter((r) => r.level === "error").map((r) => r.msg)).toEqual(["an error while the reader lags"]);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
