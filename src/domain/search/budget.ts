import { sql, type RawBuilder } from "kysely";
import type { Db, Storage } from "../../db";
import { forEngine } from "../../db/engine";
import { ReadQueueFullError } from "../../db/read-worker";
import { isSearchBudgetError } from "../../db/search-budget";
import { AppError } from "../../lib/errors";

/**
 * A condition that holds while the statement it is in is within BUDGET_MS and fails the
 * statement after (src/db/search-budget.ts, migration 20261129040000_messages_fts). Put on
 * every candidate row of a search (ROW names the row), so no search holds the serving
 * thread or the database longer than its budget, whatever the term.
 */
export function withinBudget(db: Db, budgetMs: number, row: RawBuilder<unknown>): RawBuilder<unknown> {
  return forEngine(db, {
    sqlite: () => sql`social_search_before(${Date.now() + budgetMs}, ${row})`,
    // the database's clock: the budget counts from the statement's start there
    postgres: () => sql`social_search_within(${budgetMs}::float8)`,
  })();
}

/** 503 SEARCH_TIMEOUT: the search ran out of its time budget; other requests were served meanwhile. */
export const searchTimedOut = (cause: unknown) =>
  new AppError(503, "SEARCH_TIMEOUT", "The search took too long; try more or longer words", [], {
    cause,
    retryAfter: 1,
  });

/**
 * Runs a search as one long read (Storage.oneLongRead, however many lists it searches); a
 * statement stopped by its budget, or the search refused because too many long reads wait
 * already (limits.longReadQueue), becomes SEARCH_TIMEOUT.
 */
export async function boundedSearch<T>(storage: Pick<Storage, "oneLongRead">, run: () => Promise<T>): Promise<T> {
  try {
    return await storage.oneLongRead(run);
  } catch (e) {
    if (isSearchBudgetError(e) || e instanceof ReadQueueFullError) throw searchTimedOut(e);
    throw e;
  }
}
