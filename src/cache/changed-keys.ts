import type { Database as SqliteDatabase, Statement } from "bun:sqlite";
import type { Storage } from "../db";

/**
 * A table whose rows name keys: every insert, update or deletion of a row changes the keys its
 * COLUMNS hold (NULLs name nothing), all of one kind, SPACE (KEY_SPACES). A number among the
 * COLUMNS is a key itself, named by every write logged: answers that any such write may change
 * depend on it. ON narrows the writes logged to some kinds, UPDATEOF an update to one that sets
 * one of those columns (triggers' updates included).
 */
export interface KeySource {
  table: string;
  columns: readonly (string | number)[];
  space: number;
  on?: readonly ("insert" | "update" | "delete")[];
  updateOf?: readonly string[];
}

/**
 * The key spaces the app's sources name: account ids, post ids, and readers' home feeds (a
 * reader's id, or a key naming many: see FEED_PAGE_SOURCES).
 */
export const KEY_SPACES = { accounts: 0, posts: 1, feeds: 2 } as const;

/** A key of one space, as ChangedKeys logs it. */
export interface ChangedKey {
  space: number;
  key: number;
}

/** When this many changes were taken, the log is emptied. */
const TRIM_EVERY = 256;

/** Logs made in this process: each has a TEMP table of its own, which only it reads and trims. */
let logsMade = 0;

/**
 * The keys (account ids, post ids) that rows written on a SQLite connection name, for caches
 * whose entries each depend on the rows of a few keys: a write elsewhere leaves them kept, a
 * write naming one of their keys drops them. TEMP triggers on the SOURCES append every key an
 * inserted, updated or deleted row names (old and new values, by cascades and triggers too) to
 * a TEMP log (this connection's own, nothing in the file; a rolled-back write takes its entries
 * back); `take` hands over what was logged since its last call, or says that everything may
 * have changed (another connection committed: Storage.dataVersion, the CLI beside a running
 * server). SQLite only: on PostgreSQL other nodes write without this process seeing it, so
 * such caches are not kept there.
 */
export class ChangedKeys {
  /** the TEMP table of this log */
  readonly table: string;
  readonly #sqlite: SqliteDatabase;
  readonly #read: Statement<ChangedKey & { seq: number }, [number]>;
  readonly #trim: Statement<unknown, []>;
  readonly #count: Statement<{ n: number }, []>;
  #seen = 0;
  /** log entries read so far */
  #logged = 0;
  #dataVersion: number;

  constructor(
    private readonly storage: Pick<Storage, "sqlite" | "dataVersion">,
    name: string,
    sources: readonly KeySource[],
  ) {
    const sqlite = storage.sqlite;
    if (!sqlite) throw new Error("changed keys are logged only where SQLite triggers can log them");
    this.#sqlite = sqlite;
    const log = (this.table = `changed_${name}_${++logsMade}`);
    // a new entry's seq is one past the highest in the log, and the log is emptied only when every
    // entry in it was read (see take), so none is missed; AUTOINCREMENT's bookkeeping would cost as much
    // as the entry, once per row (a post to many followers' feeds logs a row each). No constraint on
    // the key: a trigger here must never fail the write it logs
    sqlite.exec(`CREATE TEMP TABLE ${log} (seq INTEGER PRIMARY KEY, space INTEGER, key INTEGER)`);
    sources.forEach(({ table, columns, space, on, updateOf }, i) => {
      const rows = (side: "NEW" | "OLD") =>
        columns.map((c) => `(${space}, ${typeof c === "number" ? c : `${side}."${c}"`})`);
      const events = { insert: rows("NEW"), delete: rows("OLD"), update: [...rows("OLD"), ...rows("NEW")] };
      for (const [event, values] of Object.entries(events)) {
        if (on && !on.includes(event as "insert")) continue;
        const of = event === "update" && updateOf ? ` OF ${updateOf.map((c) => `"${c}"`).join(", ")}` : "";
        sqlite.exec(
          `CREATE TEMP TRIGGER ${log}_${i}_${table}_${event} AFTER ${event.toUpperCase()}${of} ON main.${table} ` +
            `BEGIN INSERT INTO temp.${log} (space, key) VALUES ${[...new Set(values)].join(", ")}; END`,
        );
      }
    });
    this.#read = sqlite.prepare(`SELECT seq, space, key FROM temp.${log} WHERE seq > ? AND key IS NOT NULL`);
    this.#trim = sqlite.prepare(`DELETE FROM temp.${log}`);
    this.#count = sqlite.prepare(`SELECT count(*) AS n FROM temp.${log}`);
    this.#dataVersion = storage.dataVersion();
  }

  /** How many entries of the log have been read (taken) since it was made. */
  get logged(): number {
    return this.#logged;
  }

  /** The entries in the log now, read or not (for tests: the log stays short). */
  get length(): number {
    return this.#count.get()!.n;
  }

  /**
   * The keys changed since the last call (each may repeat); "all" when any key may have changed
   * (another connection committed); null while a transaction is open on this connection (its
   * writes are logged but not committed: nothing kept may be used or kept until it ends).
   */
  take(): readonly ChangedKey[] | "all" | null {
    if (this.#sqlite.inTransaction) return null;
    const dataVersion = this.storage.dataVersion();
    const rows = this.#read.all(this.#seen);
    if (rows.length) this.#seen = rows[rows.length - 1]!.seq;
    this.#logged += rows.length;
    // every entry was just read, and nothing can be logged before the next statement: the log
    // may be emptied, and seqs start again from 1
    if (this.#seen >= TRIM_EVERY) {
      this.#trim.run();
      this.#seen = 0;
    }
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      return "all";
    }
    return rows;
  }
}

/**
 * Answers (JSON texts, say) kept by a string key, each with the keys of the rows it was read
 * from (ChangedKey: an account, a post), and dropped as soon as a write names one of them
 * (ChangedKeys over SOURCES); a commit by another connection drops them all. Only for
 * answers whose every row names one of its keys in SOURCES. SQLite only. Bounded: when full,
 * the answer kept longest goes first.
 */
export class KeyedCache<T> {
  readonly #byKey = new Map<string, { value: T; dependsOn: readonly ChangedKey[] }>();
  /** "space:key" of a row → the answers read from it */
  readonly #readFrom = new Map<string, Set<string>>();
  readonly #changes: ChangedKeys;

  constructor(
    storage: Pick<Storage, "sqlite" | "dataVersion">,
    name: string,
    sources: readonly KeySource[],
    private readonly max: number,
  ) {
    this.#changes = new ChangedKeys(storage, name, sources);
  }

  /**
   * Drops the answers the writes since the last call may have changed. False while a
   * transaction is open on the connection: no answer may then be used or kept.
   */
  current(): boolean {
    const changed = this.#changes.take();
    if (changed === null) return false;
    if (changed === "all") {
      this.#byKey.clear();
      this.#readFrom.clear();
    } else
      for (const { space, key } of changed) {
        const row = `${space}:${key}`;
        const keys = this.#readFrom.get(row);
        if (!keys) continue;
        for (const k of keys) this.#drop(k);
        this.#readFrom.delete(row);
      }
    return true;
  }

  /**
   * Brings the answers up to date without a request (current() outside any step that reads),
   * so the log of changed keys is read and trimmed; the number of log entries read.
   */
  catchUp(): number {
    const before = this.#changes.logged;
    this.current();
    return this.#changes.logged - before;
  }

  /** The answer kept under KEY; call current() first, in the same synchronous step. */
  get(key: string): T | undefined {
    return this.#byKey.get(key)?.value;
  }

  /**
   * Keeps VALUE under KEY, read from the rows DEPENDSON names: only when it was read in the
   * synchronous step in which current() returned true (no write can have come between).
   */
  keep(key: string, dependsOn: readonly ChangedKey[], value: T): void {
    if (this.#byKey.has(key)) this.#drop(key);
    else if (this.#byKey.size >= this.max) this.#drop(this.#byKey.keys().next().value!);
    this.#byKey.set(key, { value, dependsOn });
    for (const { space, key: k } of dependsOn) {
      const row = `${space}:${k}`;
      let keys = this.#readFrom.get(row);
      if (!keys) this.#readFrom.set(row, (keys = new Set()));
      keys.add(key);
    }
  }

  get size(): number {
    return this.#byKey.size;
  }

  /** The entries in the log of changed keys now, read or not. */
  get logLength(): number {
    return this.#changes.length;
  }

  #drop(key: string): void {
    const kept = this.#byKey.get(key);
    if (!kept) return;
    this.#byKey.delete(key);
    for (const { space, key: k } of kept.dependsOn) {
      const row = `${space}:${k}`;
      const keys = this.#readFrom.get(row);
      keys?.delete(key);
      if (keys?.size === 0) this.#readFrom.delete(row);
    }
  }
}
