import type { App } from "../app";
import { VERSION } from "../config/layout";

/** GET /healthz: liveness without auth; `socialctl status` reads the uptime from it. */
export function healthz(app: App) {
  return { status: "ok" as const, version: VERSION, uptimeSeconds: Math.floor((Date.now() - app.startedAt) / 1000) };
}
