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
    return Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(", ")}`)
      .join("; ");
  }
  return String(e?.message ?? err).split("\n")[0]!;
}

/**
 * Commander's own output (help, version, usage errors). Usage errors always go to stderr;
 * with --json everything is also held back, and `exit` prints it as the one JSON document
 * (`{help}`, `{version}` or `{error: {message}}`). --json is read from argv because commander
 * may print before it has parsed it.
 */
export function commanderOutput(argv: string[] = process.argv.slice(2)) {
  const json = argv.includes("--json");
  const held = { out: "", err: "" };
  return {
    config: {
      writeOut: (s: string) => (json ? void (held.out += s) : void process.stdout.write(s)),
      writeErr: (s: string) => {
        if (json) held.err += s;
        process.stderr.write(s);
      },
    },
    /** Ends the process after commander stopped parsing, with commander's exit code. */
    exit(err: { code?: string; exitCode?: number; message?: string }): never {
      const exitCode = err.exitCode ?? 1;
      if (json) {
        let doc: unknown;
        if (err.code === "commander.version") doc = { version: held.out.trim() };
        else if (exitCode === 0) doc = { help: held.out };
        // a command group called without its subcommand: commander shows the group's help on stderr
        else if (err.code === "commander.help") doc = { error: { message: "a subcommand is required (see --help)" } };
        else
          doc = {
            error: {
              message: (held.err.trim().split("\n")[0] || err.message || "usage error").replace(/^error: /, ""),
            },
          };
        process.stdout.write(JSON.stringify(doc) + "\n");
      }
      process.exit(exitCode);
    },
  };
}

/** True when a person can answer prompts: a TTY on stdin and no --yes/--json. */
export const interactive = (opts: GlobalOptions): boolean =>
  Boolean(process.stdin.isTTY && !opts.yes && !opts.json && !process.env.CI);
