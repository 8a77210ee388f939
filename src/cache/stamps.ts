import { Database as SqliteDatabase, type Statement } from "bun:sqlite";
import { defineService, type App } from "../app";
import type { Db, Storage } from "../db";
import { precompiled, ShapedQuery } from "../db/compiled";
import { BUSY_TIMEOUT_MS } from "../db/sqlite-dialect";

/** The caches kept by stamp: each has a row in cache_stamps and triggers on its sources (src/cache/registry.ts). */
export type StampedCache = "sessions" | "send-access" | "bot-identities" | "feed-pages" | "follow-pages";

/**
 * The stamps of the caches kept by stamp (the default rule of src/cache/registry.ts): a number
 * per cache in the cache_stamps table, raised by triggers on every write to the tables the cache
 * is read from, whoever writes (this process, the CLI beside a running server, another node), so
 * an entry kept under an older stamp is stale and nobody has to be told of a write. Read the
 * stamp before the rows an entry is made from: a write that comes between raises it past the
 * entry's, which then misses (never the other way round).
 *
 * SQLite: outside the transaction that holds the writer connection, the committed stamps are
 * read through a read-only connection of their own (WAL lets it read while a write group is
 * open, where the writer's connection would show uncommitted writes or make the read wait for the
 * group's commit), at most once per turn of the event loop while the writer writes nothing (a
 * commit by another process shows from the next turn on, before any request that could have heard
 * of it was read) and again after each of its writes and commits. Inside that
 * transaction they are read on its connection, its own writes included: what is read there may be
 * kept only once it has committed. PostgreSQL: inside a transaction one statement per read; outside,
 * one statement for all the reads asked for in a turn of the event loop.
 */
export class CacheStamps {
  readonly #sqlite: Storage["sqlite"];
  /** the committed stamps' reader: a connection of its own where the database is a file, else the writer's */
  readonly #committed: Statement<{ name: string; stamp: number }, []> | null;
  readonly #own: Statement<{ name: string; stamp: number }, []> | null;
  /** #committed's connection (the writer's where the database is in memory) */
  readonly #reader: SqliteDatabase | null;
  /** a reader's chat-list stamp (chat-list-stamps.ts) on #reader, prepared on first use */
  #chatList: Statement<{ stamp: number }, [number]> | null = null;
  /** whether #committed reads through its own connection (a database in memory has but one) */
  readonly #apart: boolean;
  #memo: Map<string, number> | null = null;
  /** the reads of this turn that go through a statement (#committedSoon): the stamps they name */
  #soon: { names: Set<StampedCache>; read: Promise<Map<string, number>> } | null = null;
  #memoChanges = -1;
  readonly #forget = () => void (this.#memo = null);

  constructor(private readonly storage: Pick<Storage, "sqlite" | "changes" | "onWriteGroup">) {
    const sqlite = (this.#sqlite = storage.sqlite);
    // a commit of this connection's writes moves no count of changes: what was read before it is dropped
    storage.onWriteGroup(this.#forget);
    const select = "SELECT name, stamp FROM cache_stamps";
    this.#own = sqlite?.prepare(select) ?? null;
    const file = sqlite?.filename;
    this.#apart = !!file && file !== ":memory:";
    if (this.#apart) {
      const reader = new SqliteDatabase(file!, { readonly: true });
      reader.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      this.#committed = reader.prepare(select);
      this.#reader = reader;
    } else {
      this.#committed = this.#own;
      this.#reader = sqlite;
    }
  }

  /**
   * NAME's stamp now without waiting, where that is possible: on SQLite (null while a transaction
   * is open on a database in memory, which has no second connection to read the committed stamp);
   * null on PostgreSQL (read).
   */
  peek(name: StampedCache): number | null {
    const sqlite = this.#sqlite;
    if (!sqlite || (sqlite.inTransaction && !this.#apart)) return null;
    return this.#memoized().get(name) ?? NaN;
  }

  /**
   * NAME's stamp as DB sees it (a transaction's own writes included). NaN when the database has
   * none (a database migrated before the cache was): equal to no stamp, so nothing is kept by it.
   */
  async read(name: StampedCache, db: Db): Promise<number> {
    const sqlite = this.#sqlite;
    if (sqlite) {
      // DB is the transaction holding the one writer connection: its own writes count
      if (sqlite.inTransaction && db.isTransaction) return rows(this.#own!).get(name) ?? NaN;
      if (!sqlite.inTransaction || this.#apart) return this.#memoized().get(name) ?? NaN;
      // someone else's transaction holds the only connection: read through Kysely, which waits until it ends
    }
    if (db.isTransaction) {
      const [row] = await stampQuery(db, { name });
      return row ? Number(row.stamp) : NaN;
    }
    return (await this.#committedSoon(db, name)).get(name) ?? NaN;
  }

  /**
   * The committed stamps asked for in this turn of the event loop (PostgreSQL, or SQLite while
   * another's transaction holds its only connection), NAME's among them, read by one statement.
   * The statement goes once the turn's requests have been handed over, so it is sent after each
   * of them arrived: it sees every write acknowledged before any of them was sent.
   */
  #committedSoon(db: Db, name: StampedCache): Promise<Map<string, number>> {
    if (this.#soon) {
      this.#soon.names.add(name);
      return this.#soon.read;
    }
    const names = new Set([name]);
    const read = new Promise<Map<string, number>>((resolve, reject) =>
      setImmediate(() => {
        this.#soon = null;
        stampsNamed(db, [...names].sort()).then(resolve, reject);
      }),
    );
    this.#soon = { names, read };
    return read;
  }

  /**
   * READER's committed chat-list stamp (chat-list-stamps.ts) without waiting, where that is
   * possible: on SQLite (undefined while a transaction is open on a database in memory, which has
   * no second connection to read the committed stamp); undefined on PostgreSQL (read).
   */
  peekChatList(reader: number): number | undefined {
    const sqlite = this.#sqlite;
    if (!sqlite || (sqlite.inTransaction && !this.#apart)) return undefined;
    this.#chatList ??= this.#reader!.prepare("SELECT stamp FROM chat_list_stamps WHERE user_id = ?");
    return this.#chatList.get(reader)?.stamp ?? 0;
  }

  #memoized(): Map<string, number> {
    const changes = this.storage.changes();
    if (this.#memo === null || changes !== this.#memoChanges) {
      if (this.#memo === null) setImmediate(this.#forget);
      this.#memo = rows(this.#committed!);
      this.#memoChanges = changes;
    }
    return this.#memo;
  }
}

/** NAMES' stamps in one statement (a statement with parameters: PostgreSQL keeps its plan). */
async function stampsNamed(db: Db, names: StampedCache[]): Promise<Map<string, number>> {
  const values: Record<string, string> = {};
  names.forEach((name, i) => (values[`n${i}`] = name));
  const rows = await stampsNamedQuery.execute(db, names.length, values);
  return new Map(rows.map((row) => [row.name, Number(row.stamp)]));
}

const stampsNamedQuery = new ShapedQuery(
  (db: Db, values: Record<string, string>, count: number) =>
    db
      .selectFrom("cache_stamps")
      .select(["name", "stamp"])
      .where(
        "name",
        "in",
        Array.from({ length: count }, (_, i) => values[`n${i}`]!),
      ),
  (count) => String(count),
);

const stampQuery = precompiled((db, p: { name: string }) =>
  db.selectFrom("cache_stamps").select("stamp").where("name", "=", p.name),
);

const rows = (select: Statement<{ name: string; stamp: number }, []>): Map<string, number> =>
  new Map(select.all().map((row) => [row.name, row.stamp]));

const cacheStampsService = defineService("cache:stamps", (app) => new CacheStamps(app.storage));

/** The App's cache stamps. */
export const cacheStampsOf = (app: App): CacheStamps => app.services.get(cacheStampsService);
