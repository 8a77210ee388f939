import type { Statement } from "bun:sqlite";
import { defineService, type App } from "../app";
import type { Db, Storage } from "../db";

/** The caches kept by stamp: each has a row in cache_stamps and triggers on its sources (src/cache/registry.ts). */
export type StampedCache = "sessions" | "send-access" | "bot-identities";

/**
 * The stamps of the caches kept by stamp (the default rule of src/cache/registry.ts): a number
 * per cache in the cache_stamps table, raised by triggers on every write to the tables the cache
 * is read from, whoever writes (this process, the CLI beside a running server, another node), so
 * an entry kept under an older stamp is stale and nobody has to be told of a write. Read the
 * stamp before the rows an entry is made from: a write that comes between raises it past the
 * entry's, which then misses (never the other way round).
 *
 * SQLite: read at most once per turn of the event loop while this connection writes nothing (a
 * commit by another process shows from the next turn on, before any request that could have
 * heard of it: the reasoning of Storage.dataVersion), again after each of its own writes, and
 * afresh inside the transaction that holds the connection (its own writes raise it; what is read
 * there may be kept only once it has committed). PostgreSQL: one statement per read.
 */
export class CacheStamps {
  readonly #sqlite: Storage["sqlite"];
  readonly #select: Statement<{ name: string; stamp: number }, []> | null;
  #memo: Map<string, number> | null = null;
  #memoChanges = -1;
  readonly #forget = () => void (this.#memo = null);

  constructor(private readonly storage: Pick<Storage, "sqlite" | "changes">) {
    this.#sqlite = storage.sqlite;
    this.#select = this.#sqlite?.prepare("SELECT name, stamp FROM cache_stamps") ?? null;
  }

  /**
   * NAME's stamp now without waiting, where that is possible: on SQLite while no transaction is
   * open on the connection (a transaction's writes may yet roll back); null otherwise (read).
   */
  peek(name: StampedCache): number | null {
    if (!this.#sqlite || this.#sqlite.inTransaction) return null;
    return this.#memoized().get(name) ?? NaN;
  }

  /**
   * NAME's stamp as DB sees it (a transaction's own writes included). NaN when the database has
   * none (a database migrated before the cache was): equal to no stamp, so nothing is kept by it.
   */
  async read(name: StampedCache, db: Db): Promise<number> {
    const sqlite = this.#sqlite;
    if (sqlite) {
      if (!sqlite.inTransaction) return this.#memoized().get(name) ?? NaN;
      // DB is the transaction holding the one connection: its own writes count
      if (db.isTransaction) return this.#rows().get(name) ?? NaN;
      // someone else's transaction holds it: read through Kysely, which waits until it ends
    }
    const row = await db.selectFrom("cache_stamps").select("stamp").where("name", "=", name).executeTakeFirst();
    return row ? Number(row.stamp) : NaN;
  }

  #memoized(): Map<string, number> {
    const changes = this.storage.changes();
    if (this.#memo === null || changes !== this.#memoChanges) {
      if (this.#memo === null) setImmediate(this.#forget);
      this.#memo = this.#rows();
      this.#memoChanges = changes;
    }
    return this.#memo;
  }

  #rows(): Map<string, number> {
    return new Map(this.#select!.all().map((row) => [row.name, row.stamp]));
  }
}

const cacheStampsService = defineService("cache:stamps", (app) => new CacheStamps(app.storage));

/** The App's cache stamps. */
export const cacheStampsOf = (app: App): CacheStamps => app.services.get(cacheStampsService);
