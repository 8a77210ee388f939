import type { App } from "../app";
import { VERSION } from "../config/layout";
import { pubsub } from "../cluster/pubsub";
import { fileStore } from "../media/store";
import { eventLoopLag } from "./event-loop";
import { schemaGuard } from "./nodes";

/** GET /healthz: liveness without auth; `socialctl status` reads the uptime from it. */
export function healthz(app: App) {
  return { status: "ok" as const, version: VERSION, uptimeSeconds: Math.floor((Date.now() - app.startedAt) / 1000) };
}

/** What a node reports about itself: what it needs to serve (checks) and the optional engines beside them. */
export interface Readiness {
  /** ready: everything answers; degraded: serving, an optional engine does not; unavailable: cannot serve */
  status: "ready" | "degraded" | "unavailable";
  /** what this node cannot serve without: the database, a schema its code may use, and an event loop that runs on time */
  checks: Record<string, string>;
  /**
   * The shared engines of several nodes, "ok" or what is wrong: without Redis (pubsub) a node
   * serves with its own realtime and limits, without the bucket (files) only file routes fail.
   * Absent when the instance uses none.
   */
  engines?: Record<string, string>;
}

/**
 * How long /readyz waits for each engine: one that hangs (a partition drops packets rather
 * than refusing) is reported as not answering, so the probe itself answers in time.
 */
const PROBE_MS = 2500;

/** What PROBLEM resolves to (null: fine), or why not within PROBE_MS. */
async function probed(problem: Promise<string | null>, what: string): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${what}: no answer within ${PROBE_MS} ms`), PROBE_MS);
  });
  try {
    return await Promise.race([
      problem.then(
        (p) => p ?? "ok",
        (err: unknown) => (err instanceof Error ? err.message : String(err)) || `${what}: unreachable`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks what this node needs: one round trip to the database through the server's own
 * connections (SQLite: reads the file's header; PostgreSQL: SELECT 1), whether the schema's
 * recorded minimum still admits this node's code (read at most every few seconds), how late its event
 * loop runs; then, on several nodes, Redis (pubsub.url) and the bucket (files.s3.*). Only
 * the first make it unavailable: an engine every node shares going away would otherwise take
 * every node out of the load balancer at the same instant, though each still serves most requests.
 */
export async function readiness(app: App): Promise<Readiness> {
  const checks: Record<string, string> = {};
  const engines: Record<string, string> = {};
  const bus = pubsub(app);
  const files = fileStore(app);
  const [database, schema, redis, bucket] = await Promise.all([
    probed(
      app.storage.ping().then(() => null),
      "database",
    ),
    probed(schemaGuard(app).problem(), "schema"),
    bus.engine === "in-process" ? null : probed(bus.problem(), "redis"),
    files.engine === "local" ? null : probed(files.problem(), "s3"),
  ]);
  checks.database = database;
  // another node may have migrated the database past what this node's code can use
  if (database === "ok" && schema !== "ok") checks.schema = schema;
  const maxLag = app.config["readiness.maxEventLoopLagMs"];
  const lag = eventLoopLag(app).lagMs();
  if (maxLag > 0 && lag > maxLag)
    checks.eventLoop = `event loop ${lag} ms late (readiness.maxEventLoopLagMs is ${maxLag})`;
  if (redis !== null) engines.pubsub = redis;
  if (bucket !== null) engines.files = bucket;
  const serving = Object.values(checks).every((c) => c === "ok");
  const whole = Object.values(engines).every((c) => c === "ok");
  return {
    status: !serving ? "unavailable" : whole ? "ready" : "degraded",
    checks,
    ...(Object.keys(engines).length ? { engines } : {}),
  };
}

/** GET /readyz: 200 while this node can serve (ready or degraded), 503 while it cannot; the body says why. */
export async function readyz(app: App): Promise<Response> {
  const report = await readiness(app);
  return Response.json(report, { status: report.status === "unavailable" ? 503 : 200 });
}
