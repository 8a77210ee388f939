import type { Command } from "commander";
import { ensureInstanceSecret, resolveDataDir } from "../../src/config";
import { isInitialised } from "../../src/config/layout";
import type { BotLogEntry } from "../../src/domain/bots/log";
import { operatorLogToken } from "../../src/ops/bot-log";
import { readServerLock } from "../../src/ops/server-lock";
import { globals } from "../context";
import { CliError, emit, type GlobalOptions } from "../output";
import { readSse } from "../sse";

const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** One entry as a line: time, what, how long, and the outcome. */
export function formatLogEntry(e: BotLogEntry): string {
  const time = e.at.slice(11, 23);
  const ms = e.ms === undefined ? "" : ` ${e.ms} ms`;
  if (e.kind === "update") {
    const what = `update #${e.update?.updateId} ${e.update?.type} via ${e.method}`;
    return `${time}  ${what}${ms}${e.ok ? "" : `  failed: ${e.error?.description}`}`;
  }
  const params = e.params && Object.keys(e.params).length ? ` ${clip(JSON.stringify(e.params))}` : "";
  const outcome = e.ok ? `→ ${clip(JSON.stringify(e.result) ?? "")}` : `✗ ${e.error?.code} ${e.error?.description}`;
  return `${time}  ${e.method}${params}${ms}  ${outcome}`;
}

/**
 * The running server on the data dir and the token of its operator log endpoint. The log
 * lives in the serving process's memory, so there is nothing to read without one.
 */
function serverOf(opts: GlobalOptions) {
  const dataDir = resolveDataDir(opts.dataDir);
  if (!isInitialised(dataDir)) throw new CliError(`no instance in ${dataDir}`);
  const lock = readServerLock(dataDir);
  if (!lock)
    throw new CliError(`no server is running on ${dataDir}: the bot log lives in the serving process's memory`);
  return { url: lock.url, headers: { authorization: `Bearer ${operatorLogToken(ensureInstanceSecret(dataDir))}` } };
}

async function failed(res: Response, name: string): Promise<never> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (res.status === 404) throw new CliError(`bot ${name} not found`);
  throw new CliError(
    `the server refused the log request (${res.status}${body?.error?.message ? `: ${body.error.message}` : ""})`,
  );
}

/** socialctl bot log NAME [--follow]: the bot's last Bot API calls and updates, from the running server. */
export function registerBotLog(bot: Command) {
  bot
    .command("log <username>")
    .description("a bot's last Bot API calls and delivered updates, from the running server (--follow: live)")
    .option("--follow", "keep printing new entries until interrupted")
    .option("--after <id>", "only entries after this id")
    .action(async (username: string, f: { follow?: boolean; after?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const after = f.after === undefined ? 0 : Number(f.after);
      if (!Number.isSafeInteger(after) || after < 0) throw new CliError("--after must be an entry id (a whole number)");
      const server = serverOf(opts);
      const path = `${server.url}/api/ops/bots/${encodeURIComponent(username)}/log${f.follow ? "/stream" : ""}?after=${after}`;
      const res = await fetch(path, { headers: server.headers });
      if (!res.ok) await failed(res, username);
      if (!f.follow) {
        const { entries } = ((await res.json()) as { data: { entries: BotLogEntry[] } }).data;
        emit(opts, { entries }, () =>
          entries.length
            ? entries.map(formatLogEntry).join("\n")
            : `No calls or updates of ${username} since the server started.`,
        );
        return;
      }
      // one JSON document per line with --json: a stream has no single document
      await readSse(res.body!, (event, e) => {
        if (event === "entry")
          process.stdout.write((opts.json ? JSON.stringify(e) : formatLogEntry(e as BotLogEntry)) + "\n");
      });
    });
}
