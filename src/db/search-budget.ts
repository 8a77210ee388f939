import type { Database as SqliteDatabase } from "bun:sqlite";

/**
 * The message a search statement fails with once its time budget is spent, on both engines
 * (PostgreSQL's social_search_within raises it: migration 20261129040000_messages_fts).
 */
export const SEARCH_BUDGET_ERROR = "social_search_budget";

/**
 * social_search_before(deadline_ms, row): true until the wall clock passes DEADLINE_MS, then
 * it fails the statement. Search statements call it once per candidate row (ROW ties it to
 * the row, so it is not evaluated once up front), which interrupts a statement over its
 * budget: bun:sqlite has no progress handler or interrupt of its own.
 */
export function registerSearchBudget(sqlite: SqliteDatabase): void {
  // the row argument is named so bun:sqlite registers two arguments
  sqlite.function("social_search_before", (deadline: number, _row: unknown) => {
    if (Date.now() >= deadline) throw new Error(SEARCH_BUDGET_ERROR);
    return 1;
  });
}

/** Whether ERROR is a search statement stopped by its budget (either engine). */
export const isSearchBudgetError = (error: unknown): boolean =>
  error instanceof Error && error.message.includes(SEARCH_BUDGET_ERROR);
