import type { Command } from "commander";
import type { App } from "../src/app";
import { openApp } from "../src/wiring";
import { resolveDataDir } from "../src/config";
import { isInitialised } from "../src/config/layout";
import { silentLogger } from "../src/lib/log";
import { reportToRunningServer, type ReportedEvent } from "../src/ops/control";
import { CliError, type GlobalOptions } from "./output";
import { socialctl } from "./hints";

/** Global options merged from the root command and the subcommand. */
export const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;

/** Opens the instance in the data dir for a one-shot command, and closes it afterwards. */
export async function withApp<T>(
  opts: GlobalOptions,
  fn: (app: App) => Promise<T>,
  { requireInit = true } = {},
): Promise<T> {
  const dataDir = resolveDataDir(opts.dataDir);
  if (requireInit && !isInitialised(dataDir))
    throw new CliError(`no instance in ${dataDir}: run '${socialctl(opts)} init' first`);
  const app = await openApp({ dataDir, log: silentLogger });
  // what the command publishes goes nowhere in this process: the running server delivers it
  const published: ReportedEvent[] = [];
  app.events.useCarrier({
    carry: (userIds, event, data) => {
      for (const userId of userIds) published.push({ userId, event, data });
    },
    resume: async () => ({ events: [] }),
    prune: () => {},
    watch: () => {},
    // the running server, told of these events, knows who is connected
    wants: () => true,
  });
  const writes = () => app.storage.changes();
  const before = writes();
  let result: T;
  let wrote: boolean;
  try {
    result = await fn(app);
    wrote = writes() > before || published.length > 0;
  } finally {
    await app.close();
  }
  // a change is in effect on the running server (tokens, bans, streams, balances) before the command returns
  if (wrote) await reportToRunningServer(dataDir, app.secret, published);
  return result;
}
