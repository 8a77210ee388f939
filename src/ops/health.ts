import type { App } from "../app";
import { VERSION } from "../config/layout";
import { pubsub } from "../cluster/pubsub";
import { fileStore } from "../media/store";

/** GET /healthz: liveness without auth; `socialctl status` reads the uptime from it. */
export function healthz(app: App) {
  return { status: "ok" as const, version: VERSION, uptimeSeconds: Math.floor((Date.now() - app.startedAt) / 1000) };
}

/**
 * GET /readyz: whether this process can serve requests now. It makes one round trip to the
 * database through the server's own connections (SQLite: reads the file's header; PostgreSQL:
 * SELECT 1) and, when the instance runs on several nodes, asks Redis (pubsub.url) and the
 * bucket (files.s3.*) too, so a
 * load balancer or orchestrator stops sending traffic that would only fail.
 */
export async function readyz(app: App): Promise<Response> {
  const checks: Record<string, string> = {};
  try {
    await app.storage.ping();
    checks.database = "ok";
  } catch (err) {
    checks.database = (err as Error).message || String(err);
  }
  const bus = pubsub(app);
  if (bus.engine !== "in-process") checks.pubsub = (await bus.problem()) ?? "ok";
  const files = fileStore(app);
  if (files.engine !== "local") checks.files = (await files.problem()) ?? "ok";
  const ready = Object.values(checks).every((c) => c === "ok");
  return Response.json({ status: ready ? "ready" : "unavailable", checks }, { status: ready ? 200 : 503 });
}
