import type { App } from "../app";
import { KeyedCache, type ChangedKey, type KeySource } from "./changed-keys";
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

/** A JSON answer read at once, and what to cache of it: the text to cache and the rows it was read from (none: not cached). */
export interface ReadAnswer {
  text: string;
  cache?: { text: string; dependsOn: readonly ChangedKey[] };
}

/**
 * The JSON text ANSWERS cache under KEY, SET given its content type, when no write named a row
 * it was read from since it was cached; else READ's. An answer READ gives at once was read in
 * this same synchronous step as the check (no write can have come between) and is cached as it
 * says; one it gives as a promise is not. Nothing is cached on PostgreSQL (ANSWERS null) or
 * while a transaction is open (KeyedCache.current).
 */
export function cachedJson(
  answers: KeyedCache<string> | null,
  set: SetHeaders,
  key: string,
  read: () => ReadAnswer | Promise<string>,
): string | Promise<string> {
  const current = answers?.current() ?? false;
  if (current) {
    const cached = answers!.get(key);
    if (cached !== undefined) return jsonText(set, cached);
  }
  const answer = read();
  if (answer instanceof Promise) return answer;
  if (current && answer.cache) answers!.keep(key, answer.cache.dependsOn, answer.cache.text);
  return answer.text;
}
