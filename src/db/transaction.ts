import type { Db, Storage } from "./index";

/**
 * Where a domain action runs: `db` is the executor (a transaction the caller opened, so
 * several actions commit or roll back together) and `afterCommit` queues what may only
 * happen once the writes are durable (live events, hooks, waking a long poll).
 */
export interface Scope {
  readonly db: Db;
  afterCommit(effect: () => unknown): void;
}

/**
 * Runs FN in one transaction of STORAGE, then its after-commit effects in the order queued
 * (none when FN throws: its writes rolled back). On SQLite, concurrent calls share one
 * commit (Storage.transaction): FN's promise settles and its effects run only after that
 * commit, and a failing FN undoes only its own writes. Inside FN, use `scope.db` only: the
 * database has one connection, which the open transaction holds.
 */
export async function inTransaction<T>(
  storage: Pick<Storage, "transaction">,
  fn: (scope: Scope) => Promise<T>,
): Promise<T> {
  const effects: Array<() => unknown> = [];
  const result = await storage.transaction((db) => {
    // a transaction PostgreSQL aborted for a conflict runs FN again: only the last run's effects count
    effects.length = 0;
    return fn({ db, afterCommit: (effect) => void effects.push(effect) });
  });
  for (const effect of effects) {
    const done = effect();
    if (done instanceof Promise) await done;
  }
  return result;
}
