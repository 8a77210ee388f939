import { chmodSync, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile, storeConfigValues, type ConfigKey } from "../config";
import { dbPath } from "../config/layout";
import { migrateToLatest, openStorage } from "../db";
import { ManualClock } from "../lib/clock";
import { silentLogger, type Logger } from "../lib/log";
import { startServer, type RunningServer } from "../main";
import type { MigrationProvider } from "kysely";
import { atEndOfRun } from "./end-of-run";
import { freshPostgresDatabase, testsOnPostgres } from "./postgres";
import { freeLoopbackPort } from "./ports";

/** Where the port probe lives (src/testing/ports.ts), for the tests that import it from here. */
export { freeLoopbackPort };

let sqliteTemplate: Promise<string> | null = null;

/**
 * A SQLite database with every migration applied, made once per test process (the SQLite
 * counterpart of the PostgreSQL set's template database): a new test server starts from a copy,
 * which its start finds up to date, instead of migrating a file of its own. Closed, so its WAL is
 * checkpointed into the one file a copy takes.
 */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "socialctl-template-"));
    atEndOfRun(() => rmSync(dir, { recursive: true, force: true }));
    const storage = openStorage(dbPath(dir));
    try {
      await migrateToLatest(storage.db, { snapshot: false });
    } finally {
      await storage.close();
    }
    return dbPath(dir);
  })();
  return sqliteTemplate;
}

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
}

/**
 * A real server on a random loopback port over a fresh data dir. Limits are lifted
 * (every test shares 127.0.0.1) and the event-loop readiness check is off unless the test
 * sets them; registration is open.
 */
export async function startTestServer(
  overrides: Partial<Record<ConfigKey, unknown>> = {},
  opts: {
    log?: Logger;
    dataDir?: string;
    sandbox?: { landing: string };
    /** the migrations the server's code knows: fewer act as an older binary, more as a newer one */
    migrations?: MigrationProvider;
  } = {},
): Promise<TestServer> {
  // a given data dir (a second node of the same instance) belongs to the caller, who removes it
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "socialctl-test-"));
  const clock = new ManualClock();
  // a concrete port (not 0) so the derived baseUrl, and the file URLs built from it, are fetchable
  const port = overrides.port ?? freeLoopbackPort();
  // SOCIAL_TEST_DATABASE=postgres: the same tests against a fresh database on a throwaway
  // cluster, named in the data dir's config so `socialctl` run on the dir uses it too; a given
  // data dir that names one already (the instance started again, another node) keeps it
  if (testsOnPostgres() && !readConfigFile(dataDir)["database.url"])
    storeConfigValues(dataDir, { "database.url": await freshPostgresDatabase() });
  // a new data dir for the code's own migrations: a copy of the migrated template, owner-only as the server makes it
  if (!testsOnPostgres() && !opts.dataDir && !opts.migrations && !overrides["database.url"]) {
    copyFileSync(await migratedSqliteTemplate(), dbPath(dataDir));
    chmodSync(dbPath(dataDir), 0o600);
  }
  const running = await startServer({
    dataDir,
    clock,
    sandbox: opts.sandbox,
    migrations: opts.migrations,
    log: opts.log ?? (process.env.TEST_LOG ? undefined : silentLogger),
    overrides: {
      port,
      host: "127.0.0.1",
      registration: "open",
      "limits.clientRps": 1_000_000,
      "limits.loginPer10Min": 1_000_000,
      "limits.botCallsPerMinute": 1_000_000,
      "limits.botNewChatsPerHour": 1_000_000,
      // servers in a test process share its one event loop with the test and each other, on a
      // loaded machine: lateness there is the test's, not a stalled node's (stalled-node.test.ts turns it on)
      "readiness.maxEventLoopLagMs": 0,
      // tests that read the log look for the line of each request they make
      "log.requests": "all",
      ...overrides,
    },
  });
  return {
    ...running,
    clock,
    dataDir,
    async stop() {
      await running.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
