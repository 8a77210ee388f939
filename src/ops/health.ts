import { VERSION, type App } from "../app";

/** GET /healthz: liveness without auth; `socialctl status` reads the uptime from it. */
export function healthz(app: App) {
  return { status: "ok" as const, version: VERSION, uptimeSeconds: Math.floor((Date.now() - app.startedAt) / 1000) };
}
