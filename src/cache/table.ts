/** One row per cache kept by stamp: its stamp, raised by triggers on writes to its sources (src/cache/stamps.ts). */
export interface CacheStampsTable {
  name: string;
  stamp: number;
}

export interface CacheTables {
  cache_stamps: CacheStampsTable;
}
