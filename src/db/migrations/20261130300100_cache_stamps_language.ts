import { sql, type Kysely } from "kysely";
import { ACCOUNT_COLUMNS, triggerName } from "./20261130100000_cache_stamps";

/**
 * The caches by stamp that show an account (sessions, send access, bot identities) watch its
 * language too: a session's cached account answers /api/auth/me and the start's account.
 */
const CACHES = ["sessions", "send-access", "bot-identities"] as const;

async function watchAccountColumns(db: Kysely<any>, columns: readonly string[]): Promise<void> {
  for (const cache of CACHES) {
    const name = triggerName(cache, "users", "update");
    await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER UPDATE OF ${columns.join(", ")} ON users BEGIN ` +
          `UPDATE cache_stamps SET stamp = stamp + 1 WHERE name = '${cache}'; END`,
      )
      .execute(db);
  }
}

export const up = (db: Kysely<any>) => watchAccountColumns(db, [...ACCOUNT_COLUMNS, "language"]);
export const down = (db: Kysely<any>) => watchAccountColumns(db, ACCOUNT_COLUMNS);
