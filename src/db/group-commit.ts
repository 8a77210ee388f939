import type { Database as SqliteDatabase } from "bun:sqlite";
import type { Kysely } from "kysely";
import type { Database } from "./schema";
import { TurnBatch } from "../lib/turn-batch";
import { directRunnerOf, type DirectRunner } from "./sqlite-dialect";

// Kysely<Database> is index.ts's Db, spelled out here because index.ts builds this writer
type Db = Kysely<Database>;

/** A transaction asked for, and how it ended. */
class Job {
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };

  constructor(
    readonly fn: (db: Db) => Promise<unknown>,
    readonly resolve: (value: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {}
}

/** The most transactions one commit carries: bounds how long one group holds the connection. */
export const MAX_GROUP = 64;

/**
 * Group commit for SQLite's single writer connection. A commit is the dearest statement of a
 * small write (a WAL frame per changed page, then the commit record), so the transactions
 * asked for during one turn of the event loop run one after another inside ONE database
 * transaction, each in a SAVEPOINT of its own, and are answered only once that transaction
 * has committed: nothing is acknowledged before it is durable.
 *
 * A failing transaction rolls back to its savepoint and is answered with its error; its
 * neighbours in the group commit. A group forms on setImmediate: every request the event loop
 * handed over in the same turn has queued its transaction by then (bun:sqlite is synchronous,
 * so a running group never yields to new requests; they form the next one). A group of one
 * runs without a savepoint, exactly as a plain transaction.
 */
export class GroupCommit {
  readonly #groups: TurnBatch<Job>;
  #closed = false;
  readonly #listeners: Array<(size: number) => void> = [];
  /** the savepoints are run straight on the connection, which the group's transaction holds */
  readonly #direct: DirectRunner;

  constructor(
    private readonly db: Db,
    private readonly sqlite: SqliteDatabase,
    maxGroup = MAX_GROUP,
  ) {
    this.#direct = directRunnerOf(db)!;
    // #commit answers every job itself, whatever happens, and never throws
    this.#groups = new TurnBatch((group) => this.#commit(group), {
      max: maxGroup,
      oneAtATime: true,
      onFailure: () => {},
    });
  }

  /** Runs FN in a transaction shared with the others asked for in this turn; settles once that has committed. */
  run<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("the database is closed"));
    return new Promise<T>((resolve, reject) => {
      this.#groups.add(new Job(fn, resolve as (value: unknown) => void, reject));
    });
  }

  /** LISTENER gets the number of transactions of every group that committed (or failed to). */
  onGroup(listener: (size: number) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Lets the running group finish and starts no other until the answer is called (or MAX_MS
   * passed): for another connection that must have the write lock to itself, which a writer
   * retrying its BEGIN on every turn of the event loop would otherwise never leave it.
   * Transactions asked for meanwhile queue and run once it is called.
   */
  holdWrites(maxMs: number): Promise<() => void> {
    return this.#groups.hold(maxMs);
  }

  /** Refuses new transactions and waits for the queued ones to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#groups.drain();
  }

  async #commit(group: Job[]): Promise<void> {
    // the job whose error ended the whole transaction: the group fails with that error
    let aborter: Job | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        if (group.length === 1) {
          const job = group[0]!;
          try {
            job.outcome = { ok: true, value: await job.fn(trx) };
          } catch (error) {
            // kept even when rolling back fails too (SQLite may have rolled back already)
            job.outcome = { ok: false, error };
            throw error;
          }
          return;
        }
        for (const job of group) {
          await this.#runInSavepoint(trx, job);
          // Some errors (disk full, I/O, a RAISE(ROLLBACK)) make SQLite roll the whole
          // transaction back: the jobs before this one are gone too (nobody was answered yet)
          if (!this.sqlite.inTransaction) {
            aborter = job;
            throw new Error("the transaction was rolled back");
          }
        }
      });
    } catch (error) {
      // nothing committed: every job that had succeeded is undone with the rest
      const failed = aborter?.outcome;
      const cause = failed && !failed.ok ? failed.error : error;
      for (const job of group) if (job.outcome?.ok !== false || aborter) job.outcome = { ok: false, error: cause };
    }
    for (const listener of this.#listeners) listener(group.length);
    for (const job of group) {
      const outcome = job.outcome!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    }
  }

  async #runInSavepoint(trx: Db, job: Job): Promise<void> {
    this.#direct.exec("SAVEPOINT job");
    try {
      const value = await job.fn(trx);
      this.#direct.exec("RELEASE job");
      job.outcome = { ok: true, value };
    } catch (error) {
      job.outcome = { ok: false, error };
      if (!this.sqlite.inTransaction) return;
      this.#direct.exec("ROLLBACK TO job");
      this.#direct.exec("RELEASE job");
    }
  }
}
