import { fileURLToPath } from "node:url";
import { readTarGz, TarGzWriter } from "./tar";

const CLI = fileURLToPath(new URL("../../cli/index.ts", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (commands run with --json print exactly one document) */
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

/** Every entry of a small archive, in order (tests rewrite archives to tamper with them). */
export async function readEntries(path: string): Promise<Array<{ path: string; data: Buffer }>> {
  const out: Array<{ path: string; data: Buffer }> = [];
  await readTarGz(path, (entry) => {
    const chunks: Buffer[] = [];
    return { write: (c) => void chunks.push(Buffer.from(c)), end: () => void out.push({ path: entry.path, data: Buffer.concat(chunks) }) };
  });
  return out;
}

export async function writeEntries(path: string, entries: Array<{ path: string; data: Buffer }>): Promise<void> {
  const w = new TarGzWriter(path);
  for (const e of entries) await w.addBuffer(e.path, e.data);
  await w.finish();
}
