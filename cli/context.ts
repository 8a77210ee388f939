import type { Command } from "commander";
import type { App } from "../src/app";
import { openApp } from "../src/wiring";
import { resolveDataDir } from "../src/config";
import { isInitialised } from "../src/config/layout";
import { silentLogger } from "../src/lib/log";
import { CliError, type GlobalOptions } from "./output";
import { socialctl } from "./hints";

/** Global options merged from the root command and the subcommand. */
export const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;

/** Opens the instance in the data dir for a one-shot command, and closes it afterwards. */
export async function withApp<T>(opts: GlobalOptions, fn: (app: App) => Promise<T>, { requireInit = true } = {}): Promise<T> {
  const dataDir = resolveDataDir(opts.dataDir);
  if (requireInit && !isInitialised(dataDir)) throw new CliError(`no instance in ${dataDir}: run '${socialctl(opts)} init' first`);
  const app = await openApp({ dataDir, log: silentLogger });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
