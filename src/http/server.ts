import { Elysia } from "elysia";
import type { App } from "../app";
import { AppError, rateLimited } from "../lib/errors";
import { clientIp } from "./client-ip";
import { CSRF_COOKIE, parseCookies } from "./cookies";
import { isValidCsrf } from "./csrf";
import { clientErrorBody, clientErrorResponse } from "./envelope";
import { toAppError } from "./errors";
import { AbuseGuard, RateLimiter } from "./rate-limit";
import { clientApiRoutes } from "../clientapi";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Paths of the Client API: CSRF and per-IP limits apply. The Bot API has its own rules. */
export function isClientApiPath(pathname: string): boolean {
  return pathname.startsWith("/api/") && !pathname.startsWith("/api/bot");
}

/** Hides tokens in paths before they reach a log line. */
export const redactPath = (pathname: string): string => pathname.replace(/\/(api\/)?bot\/?[^/]+/, (m) => m.replace(/bot\/?[^/]+/, "bot<redacted>"));

/** The root HTTP app: global guards, error mapping, and every surface's routes. */
export function createHttpApp(app: App) {
  const limiter = new RateLimiter();
  const guard = new AbuseGuard(
    () => app.config["limits.blockAfterRejections"],
    () => app.config["limits.blockSeconds"] * 1000,
  );
  const started = new WeakMap<Request, number>();

  return new Elysia({ name: "root" })
    .onRequest(({ request, server }) => {
      started.set(request, performance.now());
      const url = new URL(request.url);
      if (!isClientApiPath(url.pathname)) return;
      const ip = clientIp(request, server, app.config.trustProxy);
      const now = app.clock.now();
      const blocked = guard.blockedFor(ip, now);
      if (blocked > 0) return clientErrorResponse(rateLimited(blocked));
      const decision = limiter.check(`ip:${ip}`, app.config["limits.clientRps"], 1000, now);
      if (!decision.allowed) {
        guard.noteRejection(ip, now);
        return clientErrorResponse(rateLimited(decision.retryAfter));
      }
      if (MUTATING.has(request.method)) {
        const cookie = parseCookies(request.headers.get("cookie"))[CSRF_COOKIE];
        if (!isValidCsrf(app.secret, request.headers.get("x-csrf-token"), cookie)) {
          return clientErrorResponse(new AppError(403, "CSRF_TOKEN_INVALID", "Missing or invalid CSRF token"));
        }
      }
    })
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      const path = new URL(request.url).pathname;
      const err = toAppError(code, error, app.log, path);
      set.status = err.status;
      if (err.retryAfter !== undefined) set.headers["retry-after"] = String(err.retryAfter);
      set.headers["content-type"] = "application/json; charset=utf-8";
      return clientErrorBody(err);
    })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      const t0 = started.get(request);
      const url = new URL(request.url);
      app.log.info("request", {
        method: request.method,
        path: redactPath(url.pathname),
        status: typeof set.status === "number" ? set.status : 200,
        ms: t0 === undefined ? undefined : Math.round((performance.now() - t0) * 10) / 10,
      });
    })
    .get("/healthz", () => ({ status: "ok" }))
    .use(clientApiRoutes(app));
}

export type HttpApp = ReturnType<typeof createHttpApp>;
