import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../app";
import type { ConfigKey } from "../config";
import { ManualClock } from "../lib/clock";
import { silentLogger } from "../lib/log";
import { createRootHttpApp, openApp } from "../wiring";
import { TestClient } from "./client";
import { prepareTestDatabase, testInstanceOverrides } from "./instance";

/** Where in-process requests are addressed: nothing listens there, no request leaves the process. */
const IN_PROCESS_ORIGIN = "http://in-process.invalid";

export interface InProcessApp {
  app: App;
  clock: ManualClock;
  dataDir: string;
  /** the origin request URLs are built on (nothing listens there) */
  url: string;
  /** Answers REQUEST (or a path under `url` with INIT) through the root HTTP app, in this process. */
  fetch(request: Request | string, init?: RequestInit): Promise<Response>;
  /** A cookie-jar client whose requests go to this app in process. */
  client(): TestClient;
  stop(): Promise<void>;
}

/**
 * The whole app, as a server builds it (every listener, the root HTTP app with both surfaces),
 * on a fresh data dir configured as every test instance is, without a port, a socket or the
 * background workers: requests are answered by `app.handle` in this process. For what one
 * request shows (validation, envelopes, routing, authorisation); what needs a real socket
 * (streams, WebSockets, the client's address, timers) takes startTestServer.
 */
export async function inProcessApp(overrides: Partial<Record<ConfigKey, unknown>> = {}): Promise<InProcessApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-test-"));
  const clock = new ManualClock();
  await prepareTestDatabase(dataDir, { fresh: true, ownMigrations: false, overrides });
  const app = await openApp({
    dataDir,
    clock,
    log: process.env.TEST_LOG ? undefined : silentLogger,
    overrides: testInstanceOverrides({ baseUrl: IN_PROCESS_ORIGIN, ...overrides }),
  });
  const { http } = createRootHttpApp(app);
  const fetch = async (request: Request | string, init?: RequestInit) =>
    http.handle(typeof request === "string" ? new Request(new URL(request, IN_PROCESS_ORIGIN).href, init) : request);
  return {
    app,
    clock,
    dataDir,
    url: IN_PROCESS_ORIGIN,
    fetch,
    client: () => new TestClient(IN_PROCESS_ORIGIN, fetch),
    async stop() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
