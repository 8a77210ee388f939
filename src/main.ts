import type { App } from "./app";
import type { ConfigKey } from "./config";
import { createRootHttpApp, openApp, startWorkers } from "./wiring";
import { endLongPolls } from "./domain/bots/updates";
import { realtimeHub } from "./realtime/hub";
import { metricsPlacement, startMetricsListener } from "./ops/metrics";
import { botLogOf } from "./domain/bots/log";
import { runningCompiled } from "./ops/schedule";
import { startNodeHeartbeat } from "./ops/nodes";
import { readiness } from "./ops/health";
import type { MigrationProvider } from "kysely";
import type { Logger } from "./lib/log";
import type { Clock } from "./lib/clock";

export interface RunningServer {
  app: App;
  url: string;
  port: number;
  /**
   * Every registered route (method and path pattern), from the HTTP apps' own tables: what sweeps
   * enumerate. Builds every part of the Client API no request has built yet (see createRootHttpApp).
   */
  routes(): Promise<ReadonlyArray<{ method: string; path: string; hooks?: unknown }>>;
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>;
}

/** How long a stopping server waits for in-flight requests (uploads, logins) before cutting them. */
const SHUTDOWN_GRACE_MS = 15_000;

/** How long after listening the JIT's normal policy comes back if no request has built a part of the Client API. */
const START_JIT_GRACE_MS = 30_000;

/**
 * How long after the first part of the Client API is built the JIT's normal policy comes back:
 * past the root's own run-once work on it (its routes mapped into Bun's router and the server
 * reloaded: http/server.ts, mountBuilt), which at the normal policy would be JIT-compiled.
 */
const JIT_AFTER_BUILD_MS = 1_000;

/**
 * The compiled binary starts with the JIT's tier-up thresholds scaled (scripts/build.ts:
 * `jitPolicy`), so the start's run-once code (module evaluation, route registration, the first
 * part of the Client API built by its first request and mounted on the root) stays in the interpreter: a compile
 * touches the JIT's own machine code and memory, which an idle process then keeps for the few
 * dozen functions the build and the mount would compile at the normal policy. They are put back a moment
 * after that part is built, or after a grace period (an instance only bots talk to); then
 * the binary drops the bytecode the start linked and ran once (`Bun.shrink`: JavaScriptCore's
 * code deleted, relinked from the bundle by the next call that needs it), which a
 * process from source, whose tests start hundreds of servers, does not. From source the policy
 * is already the normal one. END does both (tests give their own).
 */
export function endOfStart(
  clientApiBuilt: Promise<unknown>,
  end: () => void = endStart,
  wait = { graceMs: START_JIT_GRACE_MS, afterBuildMs: JIT_AFTER_BUILD_MS },
): void {
  // twice when the grace period ends before a request builds a part of the Client API: the build's own
  // run-once code is dropped too
  const grace = setTimeout(end, wait.graceMs);
  grace.unref?.();
  void clientApiBuilt.then(() => {
    clearTimeout(grace);
    setTimeout(end, wait.afterBuildMs).unref?.();
  });
}

/** The end of the start: the JIT's normal policy, and (compiled) the start's run-once code dropped. */
function endStart(): void {
  Bun.unsafe.setJITPolicy(1);
  // Bun's types mark shrink deprecated, yet it is the only call that drops JavaScriptCore's code;
  // should a release remove it, only the memory it frees is lost, not the start
  if (runningCompiled() && typeof Bun.shrink === "function") Bun.shrink();
}

/** config → openApp (createApp, migrate, listeners) → workers → listen. Used by `socialctl serve` and by tests. */
export async function startServer(opts: {
  dataDir: string;
  overrides?: Partial<Record<ConfigKey, unknown>>;
  log?: Logger;
  clock?: Clock;
  /** the throwaway instance of `socialctl dev`: also serves its one-time sign-in links, which land on `landing` */
  sandbox?: { landing: string };
  /** the migrations this server's code knows (tests pass fewer to act as an older binary) */
  migrations?: MigrationProvider;
}): Promise<RunningServer> {
  const app = await openApp({
    dataDir: opts.dataDir,
    overrides: opts.overrides,
    log: opts.log,
    clock: opts.clock,
    migrations: opts.migrations,
  });
  // loaded only here: no other server has the route, nor its module
  const sandboxRoutes = opts.sandbox
    ? (await import("./clientapi/auth/sign-in-link")).signInLinkRoutes(app, opts.sandbox.landing)
    : undefined;
  const { http, routes, clientApiBuilt } = createRootHttpApp(app, { sandboxRoutes });
  try {
    // long polls (getUpdates up to 25 s) and streams outlive Bun's 10 s idle default. reusePort
    // off (Elysia turns it on): a second instance must not silently take a share of the requests
    http.listen({
      port: app.config.port,
      hostname: app.config.host,
      idleTimeout: 60,
      maxRequestBodySize: 130 * 1024 * 1024,
      reusePort: false,
    });
  } catch (err) {
    await app.close();
    if ((err as { code?: string }).code === "EADDRINUSE")
      throw new Error(`port ${app.config.port} on ${app.config.host} is already in use (another server?)`, {
        cause: err,
      });
    throw err;
  }
  startWorkers(app);
  endOfStart(clientApiBuilt);
  const server = http.server!;
  const port = server.port!;
  // listed by `socialctl status` from the moment it serves
  await startNodeHeartbeat(app, port, () => readiness(app));
  const metricsListener = metricsPlacement(app) === "port" ? startMetricsListener(app) : null;
  if (metricsListener) app.log.info("metrics listening", { url: `http://127.0.0.1:${metricsListener.port}/metrics` });
  else if (app.config["metrics.enabled"] && metricsPlacement(app) === "off")
    app.log.warn("metrics.enabled is set but neither metrics.port nor metrics.token: /metrics is not served");
  let stopping: Promise<void> | null = null;
  return {
    app,
    port,
    routes: async () => (await routes()).map((r) => ({ method: r.method, path: r.path, hooks: r.hooks })),
    url: `http://${app.config.host === "0.0.0.0" ? "127.0.0.1" : app.config.host}:${port}`,
    stop() {
      stopping ??= (async () => {
        // bot long polls answer now and realtime streams end, instead of holding the shutdown up
        endLongPolls(app);
        metricsListener?.stop();
        botLogOf(app).endFollowers();
        realtimeHub(app).shutdown();
        // in-flight requests finish; anything still open after the grace period is cut
        const drained = await Promise.race([
          server.stop(false).then(() => true),
          Bun.sleep(SHUTDOWN_GRACE_MS).then(() => false),
        ]);
        if (!drained) {
          app.log.warn("requests still open after the shutdown grace period were cut", { graceMs: SHUTDOWN_GRACE_MS });
          await server.stop(true);
        }
        await app.close();
      })();
      return stopping;
    },
  };
}
