import { fileURLToPath } from "node:url";

/** The socialctl entry point, run from source by Bun. */
export const CLI = fileURLToPath(new URL("../../cli/index.ts", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (commands run with --json print exactly one document), else null */
  json: any;
}

/** Runs `socialctl ARGS` from source in a child process, as an operator would; bounded by a timeout. */
export async function runCli(args: string[], opts: { timeoutMs?: number } = {}): Promise<CliRun> {
  const child = Bun.spawn([process.execPath, CLI, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, CI: "1" } });
  const timer = setTimeout(() => child.kill(), opts.timeoutMs ?? 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  let json: unknown = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // human output
  }
  return { code, stdout, stderr, json };
}
