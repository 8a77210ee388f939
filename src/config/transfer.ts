import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  isConfigKey,
  parseConfigValue,
  rawConfigValue,
  readConfigFile,
  writeConfigFile,
  type ConfigKey,
} from "./index";
import { SECRET_FILE, ensureDataDir } from "./layout";
import { isVapidKeys, readVapidKeys, writeVapidKeys, type VapidKeys } from "./vapid";

/**
 * What `socialctl config export` writes and `config import` reads: the data dir's stored
 * settings, the instance secret (the HMAC key of CSRF tokens and signed links) and the VAPID
 * keys (Web Push), so another node serves the same instance. It holds secrets: written
 * owner-only, handle it like a key.
 */
export interface SettingsBundle {
  format: "socialctl-settings";
  version: 1;
  config: Partial<Record<ConfigKey, unknown>>;
  secret: string;
  /** absent in the exports of instances made before Web Push: the importing node keeps (or makes) its own */
  vapid?: VapidKeys;
}

export function exportSettings(dataDir: string): SettingsBundle {
  const path = join(dataDir, SECRET_FILE);
  if (!existsSync(path)) throw new Error(`no instance secret in ${dataDir}: run 'socialctl init' first`);
  const vapid = readVapidKeys(dataDir);
  return {
    format: "socialctl-settings",
    version: 1,
    config: readConfigFile(dataDir),
    secret: readFileSync(path, "utf8").trim(),
    ...(vapid ? { vapid } : {}),
  };
}

/** Checks a bundle read from an operator's file; every key and value as `config set` would. */
export function parseSettingsBundle(text: string): SettingsBundle {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error("the settings file is not JSON: make it with 'socialctl config export'");
  }
  const b = raw as Partial<SettingsBundle>;
  if (b?.format !== "socialctl-settings" || b.version !== 1)
    throw new Error("not a settings file of 'socialctl config export' (format socialctl-settings, version 1)");
  if (typeof b.secret !== "string" || !/^[A-Za-z0-9_-]{16,}$/.test(b.secret))
    throw new Error("the settings file's secret is missing or malformed");
  if (!b.config || typeof b.config !== "object" || Array.isArray(b.config))
    throw new Error("the settings file's config must be an object");
  if (b.vapid !== undefined && !isVapidKeys(b.vapid))
    throw new Error("the settings file's vapid keys are malformed (publicKey and privateKey, base64url)");
  const config: Partial<Record<ConfigKey, unknown>> = {};
  for (const [key, value] of Object.entries(b.config)) {
    if (!isConfigKey(key)) throw new Error(`unknown config key "${key}" in the settings file`);
    config[key] = parseConfigValue(key, rawConfigValue(value));
  }
  const vapid = b.vapid && { publicKey: b.vapid.publicKey, privateKey: b.vapid.privateKey };
  return { format: "socialctl-settings", version: 1, config, secret: b.secret, ...(vapid ? { vapid } : {}) };
}

/**
 * Makes DATADIR's settings, secret and VAPID keys those of BUNDLE. A data dir that already has another
 * secret belongs to another instance (its sessions, CSRF tokens and links would all break):
 * refused unless REPLACE. Returns whether the secret changed.
 */
export function importSettings(dataDir: string, bundle: SettingsBundle, opts: { replace?: boolean } = {}): boolean {
  const path = join(dataDir, SECRET_FILE);
  const current = existsSync(path) ? readFileSync(path, "utf8").trim() : null;
  if (current !== null && current !== bundle.secret && !opts.replace)
    throw new Error(`${dataDir} already has another instance secret: pass --force to replace it`);
  ensureDataDir(dataDir);
  writeConfigFile(dataDir, bundle.config);
  if (bundle.vapid) writeVapidKeys(dataDir, bundle.vapid);
  if (current !== bundle.secret) {
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, bundle.secret + "\n", { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  }
  return current !== bundle.secret;
}
