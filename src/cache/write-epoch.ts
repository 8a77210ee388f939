import type { Database as SqliteDatabase } from "bun:sqlite";

/**
 * What a write transaction may say of its writes (Storage.transaction hands it one): which
 * readers' answers kept by the write epoch they change (WriteEpoch.tell).
 */
export interface WriteTeller {
  /**
   * Says that everything the transaction writes (cascades, triggers and hook listeners
   * included) changes, of the answers kept by the write epoch (the chat list), only those of
   * READERS (account ids; none: nobody's). Only the transaction's owner, who knows all it
   * writes, may say so; said several times, the readers add up. Unsaid, the transaction's
   * writes may have changed anyone's answer.
   */
  writesConcernOnly(readers: readonly number[]): void;
}

/** A teller that nothing hears: where no write epoch is kept (PostgreSQL). */
export const UNHEARD: WriteTeller = { writesConcernOnly() {} };

/**
 * Readers' slots: readers share a slot by id modulo this, so telling of a reader moves the
 * epoch of a few others too (their answers are made again: never wrong, only dearer), and the
 * epoch's memory stays bounded however many accounts are told of.
 */
const READER_SLOTS = 4096;
/** Told of more readers than this at once, the epoch moves for everyone (cheaper than the loop). */
const MANY_READERS = READER_SLOTS / 4;

/**
 * A number per reader that moves whenever what that reader may be shown could have changed
 * since it was last read, for answers kept per reader (the chat list) and answered meanwhile
 * without a statement. SQLite only: on PostgreSQL other nodes write without this process
 * seeing it.
 *
 * It moves for everyone on any write nobody told of (SQLite's total_changes counts every row
 * this connection writes: by triggers, cascades and in TEMP tables too, and a rolled-back
 * write all the same) and on a commit by another connection (data_version: the CLI beside a
 * running server). A write whose writer told which readers it concerns (`tell`, with the rows
 * it wrote, counted around it in one synchronous step: GroupCommit does so for each
 * transaction of a group) moves it for those readers only; a statement writing a table the
 * kept answers are not made of (watch: a like, a post, a session's last-seen) is told of as
 * concerning nobody where it runs, and so are the rows a COMMIT writes (a full-text index's
 * pending terms). Nothing is added to the writes themselves (no trigger): a send tells of its
 * chat's members.
 */
export class WriteEpoch {
  #changes = -1;
  #dataVersion = -1;
  /** rows written by told writes so far, and as of the last look at the connection */
  #told = 0;
  #toldSeen = 0;
  /** the last stamp given: each move of the epoch, for everyone or for some, takes the next */
  #stamp = 0;
  #everyoneMoved = 0;
  readonly #slotMoved = new Float64Array(READER_SLOTS);
  /** the tables kept answers are made of (watch); null: none named yet, so every table */
  #watched: Set<string> | null = null;

  constructor(private readonly storage: { sqlite: SqliteDatabase | null; changes(): number; dataVersion(): number }) {
    if (!storage.sqlite) throw new Error("a write epoch is kept only where SQLite counts the writes");
  }

  /**
   * READER's epoch now: equal to an earlier one only if nothing that reader may be shown was
   * written in between. Null while a transaction is open on this connection: its writes are
   * counted but not committed, and a rollback takes them back without moving the count, so
   * nothing read then may be kept. Read it before the reads an answer is made from, so a write
   * that comes between moves it.
   */
  now(reader: number): number | null {
    if (this.storage.sqlite!.inTransaction) return null;
    const changes = this.storage.changes();
    const dataVersion = this.storage.dataVersion();
    if (changes !== this.#changes || dataVersion !== this.#dataVersion) {
      // rows written that no teller counted, or another process's commit: anyone's answer may have changed
      if (dataVersion !== this.#dataVersion || changes - this.#changes !== this.#told - this.#toldSeen)
        this.#everyoneMoved = ++this.#stamp;
      this.#changes = changes;
      this.#dataVersion = dataVersion;
    }
    this.#toldSeen = this.#told;
    const slot = this.#slotMoved[reader % READER_SLOTS]!;
    return slot > this.#everyoneMoved ? slot : this.#everyoneMoved;
  }

  /**
   * Names TABLES as what kept answers are made of, with every table whose writes reach theirs
   * through a trigger or a cascade (a test holds the kept answers' list to that). A statement
   * writing any other table concerns nobody's answers, and the connection tells so as it runs
   * it (sqlite-dialect.ts), so everyone's keep. Until some are named, every table is.
   */
  watch(tables: Iterable<string>): void {
    this.#watched ??= new Set();
    for (const table of tables) this.#watched.add(table);
  }

  /** Whether a statement writing TABLE may change kept answers (watch). */
  concerns(table: string): boolean {
    return this.#watched === null || this.#watched.has(table);
  }

  /** Rows told of so far (tell): a count taken around a transaction subtracts what its statements told themselves. */
  get told(): number {
    return this.#told;
  }

  /**
   * CHANGES rows were just written on this connection by a writer that told what they change:
   * the answers of READERS only (none: nobody's). The count must be taken around those writes
   * alone, in one synchronous step or where nothing else can write (a transaction of a group).
   */
  tell(changes: number, readers: readonly number[]): void {
    this.#told += changes;
    if (readers.length === 0) return;
    const stamp = ++this.#stamp;
    if (readers.length > MANY_READERS) this.#everyoneMoved = stamp;
    else for (const reader of readers) this.#slotMoved[reader % READER_SLOTS] = stamp;
  }
}
