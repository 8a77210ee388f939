import { ACCOUNT_COLUMNS, stampMigration } from "./20261130100000_cache_stamps";

/**
 * The stamp `follow-pages` (src/cache/stamps.ts): raised by every write to a table a page of
 * someone's followers or following is read from (the follows, the accounts shown, the blocks
 * that hide them), but an account's counters, which no such page shows. The columns are the
 * tables' as of this migration (src/cache/registry.test.ts fails when a column added later is
 * not watched, until a migration extends the trigger).
 */
const CACHE = "follow-pages";

const TABLES: Record<string, readonly string[]> = {
  follows: ["id", "follower_id", "followee_id", "created_at"],
  blocks: ["id", "blocker_id", "blocked_id", "created_at"],
  users: [...ACCOUNT_COLUMNS, "language"],
};

export const { up, down } = stampMigration(CACHE, TABLES);
