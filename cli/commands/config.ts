import type { Command } from "commander";
import { writeFileSync } from "node:fs";
import {
  configKeys,
  isConfigKey,
  isLiveConfigKey,
  loadConfig,
  rawConfigValue,
  resolveDataDir,
  setConfigValue,
} from "../../src/config";
import { isInitialised } from "../../src/config/layout";
import { applyLiveSettings } from "../../src/domain/admin/settings";
import { exportSettings, importSettings, parseSettingsBundle } from "../../src/config/transfer";
import { assertNoServerRunning } from "../../src/ops/server-lock";
import { CliError, emit } from "../output";
import { globals, withApp } from "../context";

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
      emit(opts, { key, value: effective[key] }, rawConfigValue(effective[key]));
    });
  config
    .command("set <key> <value>")
    .description("validate and store a key (takes effect on the next start; a live key at once, on every node)")
    .action(async (key: string, value: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const dataDir = resolveDataDir(opts.dataDir);
      const stored = setConfigValue(dataDir, key, value);
      // a live key is also stored in the instance's database, whose value every node applies over its file's
      if (isLiveConfigKey(key) && isInitialised(dataDir))
        await withApp(opts, (app) => applyLiveSettings(app, [{ key, from: app.config[key], to: stored }], null));
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
  config
    .command("export")
    .description("print (or write to --out) the settings and instance secret, for another node of this instance")
    .option("--out <file>", "write to FILE (owner-only) instead of stdout")
    .action((flags: { out?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const bundle = exportSettings(resolveDataDir(opts.dataDir));
      if (!flags.out) {
        // the bundle is the one document, with or without --json
        process.stdout.write(JSON.stringify(bundle, null, opts.json ? 0 : 2) + "\n");
        return;
      }
      writeFileSync(flags.out, JSON.stringify(bundle, null, 2) + "\n", { mode: 0o600, flag: "wx" });
      const keys = Object.keys(bundle.config).length;
      emit(opts, { out: flags.out, keys }, `wrote ${keys} settings and the instance secret to ${flags.out}`);
    });
  config
    .command("import <file>")
    .description("take the settings and instance secret of 'config export' (FILE, or - for stdin)")
    .option("--force", "replace a different instance secret already in the data dir")
    .action(async (file: string, flags: { force?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const dataDir = resolveDataDir(opts.dataDir);
      assertNoServerRunning(dataDir, "importing settings");
      const text =
        file === "-"
          ? await Bun.stdin.text()
          : await Bun.file(file)
              .text()
              .catch(() => null);
      if (text === null) throw new CliError(`cannot read ${file}`);
      const bundle = parseSettingsBundle(text);
      const secretChanged = importSettings(dataDir, bundle, { replace: flags.force });
      const keys = Object.keys(bundle.config).length;
      emit(
        opts,
        { dataDir, keys, secretChanged },
        `imported ${keys} settings${secretChanged ? " and the instance secret" : ""} into ${dataDir}; start it with 'socialctl serve'`,
      );
    });
}
