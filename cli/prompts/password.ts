import { clack } from "./clack";
import { CliError, interactive, type GlobalOptions } from "../output";

/**
 * The password for a command that takes one: --password when given (it shows in `ps`, so
 * it is the last resort), else asked for on a terminal without echo, else the first line of
 * stdin (`printf '%s\n' "$PW" | socialctl user create ...`).
 */
export async function readPassword(opts: GlobalOptions, given: string | undefined, message: string): Promise<string> {
  if (given) return given;
  if (interactive(opts)) {
    const p = clack();
    const answer = await p.password({ message });
    if (p.isCancel(answer)) process.exit(1);
    return answer;
  }
  if (process.stdin.isTTY)
    throw new CliError("--password is required with --yes or --json on a terminal (or pipe the password on stdin)");
  const text = await new Response(Bun.stdin.stream()).text();
  const line = text.split(/\r?\n/)[0] ?? "";
  if (!line) throw new CliError("no password: pass --password, answer the prompt on a terminal, or pipe it on stdin");
  return line;
}
