import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import {
  configKeys,
  isConfigKey,
  isLiveConfigKey,
  liveConfigKeys,
  rawConfigValue,
  type Config,
  type ConfigKey,
} from "./keys";
import { randomToken } from "../lib/ids";

export { configKeys, isConfigKey, isLiveConfigKey, liveConfigKeys, rawConfigValue, type Config, type ConfigKey };

import { CONFIG_FILE, SECRET_FILE } from "./layout";

export function resolveDataDir(flag?: string): string {
  return resolve(flag ?? process.env.SOCIAL_DATA_DIR ?? "./data");
}

/** Values stored in the data dir's config file (JSON object of key → value). */
export function readConfigFile(dataDir: string): Partial<Record<ConfigKey, unknown>> {
  const path = join(dataDir, CONFIG_FILE);
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error(`config file ${path} must hold a JSON object`);
  return parsed as Partial<Record<ConfigKey, unknown>>;
}

export function writeConfigFile(dataDir: string, values: Partial<Record<ConfigKey, unknown>>): void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, CONFIG_FILE);
  const tmp = `${path}.tmp-${process.pid}`;
  // synced before the rename: a live setting an admin saw acknowledged survives a power cut
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, JSON.stringify(values, null, 2) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Parses one raw string for KEY, throwing an Error that names the key. */
export function parseConfigValue(key: string, raw: string): unknown {
  if (!isConfigKey(key)) throw new Error(`unknown config key "${key}"`);
  try {
    return configKeys[key].parse(raw);
  } catch (err) {
    throw new Error(`config key "${key}" ${(err as Error).message}`);
  }
}

/** Sets KEY in the data dir's config file after validating it. */
export function setConfigValue(dataDir: string, key: string, raw: string): unknown {
  const value = parseConfigValue(key, raw);
  storeConfigValues(dataDir, { [key]: value });
  return value;
}

/** Merges already-parsed VALUES into the data dir's config file, keeping its other keys. */
export function storeConfigValues(dataDir: string, values: Partial<Record<ConfigKey, unknown>>): void {
  writeConfigFile(dataDir, { ...readConfigFile(dataDir), ...values });
}

/**
 * defaults ← config file ← environment (SOCIAL_PORT, SOCIAL_HOST, SOCIAL_BASE_URL,
 * SOCIAL_S3_ACCESS_KEY_ID, SOCIAL_S3_SECRET_ACCESS_KEY) ← overrides,
 * validated once; an invalid value fails loudly naming its key.
 */
export function loadConfig(dataDir: string, overrides: Partial<Record<ConfigKey, unknown>> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(configKeys)) out[key] = spec.default;
  const layers: Array<Partial<Record<string, unknown>>> = [readConfigFile(dataDir), envLayer(), overrides];
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!isConfigKey(key)) throw new Error(`unknown config key "${key}"`);
      out[key] = coerce(key, value);
    }
  }
  if (!out.baseUrl) out.baseUrl = `http://127.0.0.1:${out.port}`;
  return Object.freeze(out) as Config;
}

function coerce(key: ConfigKey, value: unknown): unknown {
  return parseConfigValue(key, rawConfigValue(value));
}

function envLayer(): Partial<Record<ConfigKey, unknown>> {
  const env = process.env;
  return {
    port: env.SOCIAL_PORT,
    host: env.SOCIAL_HOST,
    baseUrl: env.SOCIAL_BASE_URL,
    // secrets kept out of the config file (and out of `config export`) when the operator prefers
    "files.s3.accessKeyId": env.SOCIAL_S3_ACCESS_KEY_ID,
    "files.s3.secretAccessKey": env.SOCIAL_S3_SECRET_ACCESS_KEY,
  };
}

/** The instance secret (HMAC key for CSRF and signed links), made once at init. */
export function ensureInstanceSecret(dataDir: string): string {
  const path = join(dataDir, SECRET_FILE);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomToken(32);
  writeFileSync(path, secret + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
  return secret;
}
