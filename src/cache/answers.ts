import type { App } from "../app";
import { KeyedCache, type KeySource } from "./changed-keys";
import { registerCleanup } from "../ops/housekeeping";
import { jsonText, type SetHeaders } from "../http/envelope";

/** How often a serving process brings its kept answers up to date when no request does. */
export const KEYED_CACHE_CATCH_UP_MS = 10_000;

/**
 * The App's KeyedCache named NAME over SOURCES, at most MAX (null on PostgreSQL, see
 * KeyedCache). Their log of changed keys grows with every write to SOURCES and is trimmed only
 * as it is read: a housekeeping task reads it every KEYED_CACHE_CATCH_UP_MS, so an instance
 * that writes much and reads these answers seldom keeps a short log, not one of every write
 * since the last read.
 */
export function keyedCacheFor<T>(app: App, name: string, sources: readonly KeySource[], max: number) {
  if (app.storage.engine !== "sqlite") return null;
  const answers = new KeyedCache<T>(app.storage, name, sources, max);
  registerCleanup(app, `cached-answers:${name}`, KEYED_CACHE_CATCH_UP_MS, () => answers.catchUp());
  return answers;
}

/**
 * The JSON text ANSWERS keep under KEY, SET given its content type, when no write named a row
 * it was read from since it was kept; else whether an answer read now, in this same synchronous
 * step, may be kept under KEY (KeyedCache.current: false on PostgreSQL and in a transaction).
 */
export function cachedJson(answers: KeyedCache<string> | null, set: SetHeaders, key: string): string | boolean {
  if (!answers?.current()) return false;
  const kept = answers.get(key);
  if (kept === undefined) return true;
  return jsonText(set, kept);
}
