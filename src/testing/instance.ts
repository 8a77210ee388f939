import { chmodSync, copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile, storeConfigValues, type ConfigKey } from "../config";
import { dbPath } from "../config/layout";
import { migrateToLatest, openStorage } from "../db";
import { testsOnPostgres } from "./engine";
import { whenProcessEnds } from "./process-end";

/**
 * A test instance on PostgreSQL keeps a small pool: each new connection costs the server a
 * process start, a cost paid by every one of a run's hundreds of instances, while a test sends
 * few requests at once.
 */
export const TEST_POOL = { "database.poolSize": 4 } as const;

/**
 * What every test instance (a server on a port, an app called in process) is configured with
 * under the test's own OVERRIDES: limits are lifted (every test shares 127.0.0.1) and the
 * event-loop readiness check is off; registration is open.
 */
export const testInstanceOverrides = (
  overrides: Partial<Record<ConfigKey, unknown>>,
): Partial<Record<ConfigKey, unknown>> => ({
  host: "127.0.0.1",
  registration: "open",
  "limits.clientRps": 1_000_000,
  "limits.loginPer10Min": 1_000_000,
  "limits.botCallsPerMinute": 1_000_000,
  "limits.botNewChatsPerHour": 1_000_000,
  // the search budget keeps a serving instance's other requests moving; on a machine the suite
  // keeps busy it would refuse the tests' own searches
  "limits.searchBudgetMs": 60_000,
  // instances in a test process share its one event loop with the test and each other, on a
  // loaded machine: lateness there is the test's, not a stalled node's (stalled-node.test.ts turns it on)
  "readiness.maxEventLoopLagMs": 0,
  // tests that read the log look for the line of each request they make
  "log.requests": "all",
  ...TEST_POOL,
  ...overrides,
});

let sqliteTemplate: Promise<string> | null = null;

/**
 * A SQLite database file with every migration applied, made once per test process and removed
 * after it: the SQLite counterpart of the PostgreSQL set's template database. Closed, so its
 * WAL is checkpointed into the one file a copy takes.
 */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "socialctl-template-"));
    whenProcessEnds(`rm -rf '${dir}'`);
    const path = dbPath(dir);
    const storage = openStorage(path);
    try {
      await migrateToLatest(storage.db, { snapshot: false });
    } finally {
      await storage.close();
    }
    return path;
  })();
  return sqliteTemplate;
}

/**
 * Gives the data dir DATADIR the database a test instance runs on.
 * SOCIAL_TEST_DATABASE=postgres: a fresh database on the process's throwaway cluster, named in
 * the data dir's config so `socialctl` run on the dir uses it too; a data dir that names one
 * already (the instance started again, another node) keeps it. On SQLite, a new data dir
 * (FRESH) for the code's own migrations starts from a copy of a migrated template, owner-only
 * as the server makes its own, which the instance then finds up to date (copying a file is
 * faster than migrating); otherwise the instance migrates its file itself.
 */
export async function prepareTestDatabase(
  dataDir: string,
  opts: { fresh: boolean; ownMigrations: boolean; overrides: Partial<Record<ConfigKey, unknown>> },
): Promise<void> {
  if (testsOnPostgres()) {
    // loaded on the PostgreSQL run only: an instance on SQLite needs neither the cluster nor its helpers
    const { freshPostgresDatabase } = await import("./postgres");
    if (!readConfigFile(dataDir)["database.url"])
      storeConfigValues(dataDir, { "database.url": await freshPostgresDatabase(), ...TEST_POOL });
    return;
  }
  if (!opts.fresh || opts.ownMigrations || opts.overrides["database.url"]) return;
  const target = dbPath(dataDir);
  copyFileSync(await migratedSqliteTemplate(), target);
  chmodSync(target, 0o600);
}
