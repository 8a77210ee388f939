import type { App } from "../../app";
import {
  configKeys,
  isConfigKey,
  isLiveConfigKey,
  liveConfigKeys,
  rawConfigValue,
  storeConfigValues,
  type ConfigKey,
} from "../../config";
import { validationError, type FieldErrors } from "../../lib/errors";

/** The settings an admin may change while the server runs, with their current values. */
export function liveSettings(app: App) {
  return liveConfigKeys.map((key) => ({
    key,
    value: app.config[key],
    default: configKeys[key].default,
    describe: configKeys[key].describe,
  }));
}

export interface SettingChange {
  key: ConfigKey;
  from: unknown;
  to: unknown;
}

/**
 * Validates every value exactly as `socialctl config set` does (each key's own parser) and
 * returns the changes it would make; nothing is applied. Keys that only take effect at
 * start-up are refused, naming the CLI command instead. Any bad value fails the whole set.
 */
export function planLiveSettings(app: App, raw: Record<string, string | number | boolean | string[]>): SettingChange[] {
  const errors: FieldErrors = {};
  const parsed: Partial<Record<ConfigKey, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isLiveConfigKey(key)) {
      errors[key] = [
        isConfigKey(key)
          ? "cannot be changed on a running server: use socialctl config set and restart"
          : "is not a config key",
      ];
      continue;
    }
    try {
      parsed[key] = configKeys[key].parse(rawConfigValue(value));
    } catch (err) {
      errors[key] = [(err as Error).message];
    }
  }
  if (Object.keys(errors).length) throw validationError(errors);
  if (Object.keys(parsed).length === 0) throw validationError({ body: ["give at least one setting to change"] });
  return (Object.keys(parsed) as ConfigKey[]).map((key) => ({ key, from: app.config[key], to: parsed[key] }));
}

/** Stores planned CHANGES in the config file (so a restart keeps them) and applies them to the running server: the next request sees them. */
export function applyLiveSettings(app: App, changes: SettingChange[]): void {
  const values = Object.fromEntries(changes.map((c) => [c.key, c.to])) as Partial<Record<ConfigKey, unknown>>;
  storeConfigValues(app.dataDir, values);
  app.reconfigure(values);
}
