import { delimiter, dirname, resolve, basename } from "node:path";
import { resolveDataDir } from "../src/config";
import { runningCompiled } from "../src/ops/schedule";
import type { GlobalOptions } from "./output";

const shellWord = (s: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * How to run this socialctl again, so the next steps it prints run as printed: the compiled
 * binary by the path it was started from (`./socialctl` beside it, its bare name when on
 * PATH), from source `npx socialctl`; with --data-dir when the data dir is not the default.
 */
export function socialctl(opts: GlobalOptions): string {
  let command = "npx socialctl";
  if (runningCompiled()) {
    const exe = process.execPath;
    const onPath = (process.env.PATH ?? "").split(delimiter).some((d) => d !== "" && resolve(d) === dirname(exe));
    command = dirname(exe) === process.cwd() ? `./${basename(exe)}` : onPath ? basename(exe) : shellWord(exe);
  }
  const dataDir = resolveDataDir(opts.dataDir);
  if (opts.dataDir !== undefined && dataDir !== resolveDataDir()) command += ` --data-dir ${shellWord(opts.dataDir)}`;
  return command;
}
