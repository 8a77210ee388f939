import type { App } from "../../app";
import { configKeys, isConfigKey, isLiveConfigKey, liveConfigKeys, storeConfigValues, type ConfigKey } from "../../config";
import { validationError, type FieldErrors } from "../../lib/errors";

/** The settings an admin may change while the server runs, with their current values. */
export function liveSettings(app: App) {
  return liveConfigKeys.map((key) => ({ key, value: app.config[key], default: configKeys[key].default, describe: configKeys[key].describe }));
}

export interface SettingChange {
  key: ConfigKey;
  from: unknown;
  to: unknown;
}

/**
 * Validates every value exactly as `socialctl config set` does (each key's own parser), then
 * stores them in the config file (so a restart keeps them) and applies them to the running
 * server: the next request sees them. Nothing changes unless every value is valid. Keys that
 * only take effect at start-up are refused, naming the CLI command instead.
 */
export function applyLiveSettings(app: App, raw: Record<string, string | number | boolean>): SettingChange[] {
  const errors: FieldErrors = {};
  const parsed: Partial<Record<ConfigKey, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isLiveConfigKey(key)) {
      errors[key] = [isConfigKey(key) ? "cannot be changed on a running server: use socialctl config set and restart" : "is not a config key"];
      continue;
    }
    try {
      parsed[key] = configKeys[key].parse(String(value));
    } catch (err) {
      errors[key] = [(err as Error).message];
    }
  }
  if (Object.keys(errors).length) throw validationError(errors);
  if (Object.keys(parsed).length === 0) throw validationError({ body: ["give at least one setting to change"] });
  const changes = (Object.keys(parsed) as ConfigKey[]).map((key) => ({ key, from: app.config[key], to: parsed[key] }));
  storeConfigValues(app.dataDir, parsed);
  app.reconfigure(parsed);
  return changes;
}
