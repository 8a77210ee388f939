/**
 * CLI output: human text by default, exactly one JSON document on stdout with --json,
 * and failures as one line on stderr with a non-zero exit.
 */
export interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
  yes?: boolean;
}

export class CliError extends Error {}

export function emit(opts: GlobalOptions, json: unknown, human: string | (() => string)): void {
  if (opts.json) process.stdout.write(JSON.stringify(json) + "\n");
  else process.stdout.write((typeof human === "function" ? human() : human) + "\n");
}

export function fail(opts: GlobalOptions, err: unknown): never {
  const message = oneLine(err);
  if (opts.json) process.stdout.write(JSON.stringify({ error: { message } }) + "\n");
  process.stderr.write(`socialctl: ${message}\n`);
  process.exit(1);
}

function oneLine(err: unknown): string {
  const e = err as { message?: string; details?: { fieldErrors?: Record<string, string[]> } };
  const fields = e?.details?.fieldErrors;
  if (fields && Object.keys(fields).length) {
    return Object.entries(fields).map(([k, v]) => `${k} ${v.join(", ")}`).join("; ");
  }
  return String(e?.message ?? err).split("\n")[0]!;
}

/** True when a person can answer prompts: a TTY on stdin and no --yes/--json. */
export const interactive = (opts: GlobalOptions): boolean => Boolean(process.stdin.isTTY && !opts.yes && !opts.json && !process.env.CI);
