import type { Db } from "./index";

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
 * Runs FN in one transaction on DB, then its after-commit effects in the order queued (none
 * when FN throws: the transaction rolled back). Inside FN, use `scope.db` only: the database
 * has one connection, which the open transaction holds.
 */
export async function inTransaction<T>(db: Db, fn: (scope: Scope) => Promise<T>): Promise<T> {
  const effects: Array<() => unknown> = [];
  const result = await db
    .transaction()
    .execute((trx) => fn({ db: trx, afterCommit: (effect) => void effects.push(effect) }));
  for (const effect of effects) await effect();
  return result;
}
