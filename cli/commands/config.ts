import type { Command } from "commander";
import { configKeys, isConfigKey, loadConfig, resolveDataDir, setConfigValue } from "../../src/config";
import { CliError, emit } from "../output";
import { globals } from "../context";

export function registerConfig(program: Command) {
  const config = program.command("config").description("read and write config keys");
  config
    .command("get [key]")
    .description("print one key's effective value, or all keys")
    .action((key: string | undefined, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const effective = loadConfig(resolveDataDir(opts.dataDir));
      if (key === undefined) {
        emit(opts, effective, () =>
          Object.entries(effective)
            .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
            .join("\n"),
        );
        return;
      }
      if (!isConfigKey(key)) throw new CliError(`unknown config key "${key}"`);
      emit(opts, { key, value: effective[key] }, String(effective[key]));
    });
  config
    .command("set <key> <value>")
    .description("validate and store a key (takes effect on the next start)")
    .action((key: string, value: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const stored = setConfigValue(resolveDataDir(opts.dataDir), key, value);
      emit(opts, { key, value: stored }, `${key} = ${JSON.stringify(stored)}`);
    });
  config
    .command("keys")
    .description("list every key with its default and meaning")
    .action((_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const list = Object.entries(configKeys).map(([key, s]) => ({ key, default: s.default, describe: s.describe }));
      emit(opts, { keys: list }, () =>
        list.map((k) => `${k.key} (default ${JSON.stringify(k.default)}): ${k.describe}`).join("\n"),
      );
    });
}
