/**
 * Bounds for in-process collections that grow with use. A Map or Set keeps its keys in the
 * order they were inserted, so deleting and setting a key again makes it the newest, and the
 * first keys are the ones set longest ago.
 */

/** Drops COLLECTION's first-inserted entries until it holds at most MAX; FORGET sees each key dropped. */
export function forgetOldest<K>(collection: Map<K, unknown> | Set<K>, max: number, forget?: (key: K) => void): void {
  for (const key of collection.keys()) {
    if (collection.size <= max) return;
    collection.delete(key);
    forget?.(key);
  }
}

/** Sets KEY to VALUE as MAP's newest entry, then drops the oldest beyond MAX. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  forgetOldest(map, max);
}
