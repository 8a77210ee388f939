import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigKey } from "../config";
import { ManualClock } from "../lib/clock";
import { silentLogger, type Logger } from "../lib/log";
import { startServer, type RunningServer } from "../main";
import type { MigrationProvider } from "kysely";
import { prepareTestDatabase, testInstanceOverrides } from "./instance";
import { freeLoopbackPort } from "./ports";

/** Where the port probe lives (src/testing/ports.ts), for the tests that import it from here. */
export { freeLoopbackPort };

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
}

/**
 * A real server on a random loopback port over a fresh data dir, configured as every test
 * instance is (src/testing/instance.ts: limits lifted, registration open) unless the test
 * sets otherwise.
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
  await prepareTestDatabase(dataDir, { fresh: !opts.dataDir, ownMigrations: !!opts.migrations, overrides });
  const running = await startServer({
    dataDir,
    clock,
    sandbox: opts.sandbox,
    migrations: opts.migrations,
    log: opts.log ?? (process.env.TEST_LOG ? undefined : silentLogger),
    overrides: testInstanceOverrides({ port, ...overrides }),
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
