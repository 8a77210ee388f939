import { untrustedProxyWatch } from "./untrusted-proxy";
import { Elysia, type AnyElysia } from "elysia";
import type { Server } from "bun";
import { removeTrailingPath } from "elysia/adapter/bun";
import { createBunRouteHandler } from "elysia/adapter/bun/compose";
import type { InternalRoute } from "elysia/types";
import type { App } from "../app";
import { AppError, notFound, rateLimited } from "../lib/errors";
import { clientIp, rateLimitKey } from "./client-ip";
import { CSRF_COOKIE, cookieValue } from "./cookies";
import { csrfCheck } from "./csrf";
import { clientErrorBody, clientErrorResponse } from "./envelope";
import { toAppError } from "./errors";
import { AbuseGuard } from "../lib/rate-limit";
import { rateLimiter } from "../cluster/counters";
import { metricsFor } from "../ops/metrics";
import { requestPath } from "./request-path";
import { rememberClientIp } from "./context";
import { requestLineGate } from "./request-log";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The largest Client API request body but for uploads: the biggest form (a post, a message with entities) is far below. */
export const CLIENT_BODY_MAX_BYTES = 64 * 1024;

/** Paths of the Client API: CSRF and per-IP limits apply. The Bot API has its own rules. */
export function isClientApiPath(pathname: string): boolean {
  // only token paths (/api/bot/<token>/..., /api/bot<id>:...) are the Bot API; /api/bots is the Client API
  return pathname.startsWith("/api/") && !pathname.startsWith("/api/bot/") && !/^\/api\/bot\d/.test(pathname);
}

/** The part of a token path before the token, in any case and after any number of leading slashes (what libraries build from an API root ending in "/"). */
const TOKEN_PATH_PREFIX = /^(\/+(?:api\/+bot\/+|api\/+bot(?=\d)|bot(?!s\/|s$)|file\/+bot))[^/]*/i;
/** Anything shaped like a bot token (`<id>:<secret>`, the colon maybe escaped) in any other place of a path. */
const TOKEN_ANYWHERE = /\d{1,16}(?::|%3a)[A-Za-z0-9_-]{8,}/gi;

/**
 * Hides bot tokens (/bot<token>/…, //bot<token>/…, /Bot<token>/…, /api/bot<token>/…,
 * /api/bot/<token>/…, /file/bot<token>/…, and a token-shaped segment anywhere else) before a
 * path reaches a log line.
 */
export const redactPath = (pathname: string): string =>
  pathname.replace(TOKEN_PATH_PREFIX, "$1<redacted>").replace(TOKEN_ANYWHERE, "<redacted>");

/** Route pattern of each routed request (set before validation, so 422s carry it too). */
const routeOf = new WeakMap<Request, string>();

/**
 * The metrics label of a request: its route pattern; the Bot API's token paths (answered
 * before routing) as one pattern; anything else answered before routing (rate
 * limits, CSRF refusals, paths no route matches) as "none", so raw paths with ids or tokens never become labels.
 */
function routeLabel(request: Request, path: string, redacted: string): string {
  return routeOf.get(request) ?? (redacted !== path ? "/api/bot/:token/:method" : "none");
}

/** A fetch handler as Elysia's wrap sees it: Bun's adapter calls it with the request alone. */
type Handle = (request: Request) => unknown;

/**
 * What answers a request before routing, given its path: a Response (or its promise), or
 * undefined to let the routes answer. The Bot API's token paths are such a surface.
 */
export type BeforeRouting = (request: Request, path: string) => Response | Promise<Response | undefined> | undefined;

const bodyTooLarge = () =>
  new AppError(413, "VALIDATION_ERROR", "Request body is too large", {
    fieldErrors: { body: [`is larger than ${CLIENT_BODY_MAX_BYTES} bytes`] },
  });
const lengthRequired = () =>
  new AppError(411, "VALIDATION_ERROR", "A request body needs a Content-Length", {
    fieldErrors: { body: ["needs a Content-Length header"] },
  });

/**
 * A Client API body is refused before a byte of it is read when it would cost more than any
 * form needs: over CLIENT_BODY_MAX_BYTES by its Content-Length, or without one (chunked, so
 * its size is unknown until read). LARGE_BODY_PATHS (uploads) stream and limit their own.
 */
function bodyProblem(request: Request, pathname: string, largeBodyPaths: ReadonlySet<string>): AppError | null {
  if (!MUTATING.has(request.method) || largeBodyPaths.has(pathname)) return null;
  const length = request.headers.get("content-length");
  if (length === null) return request.headers.has("transfer-encoding") ? lengthRequired() : null;
  return Number(length) > CLIENT_BODY_MAX_BYTES ? bodyTooLarge() : null;
}

const csrfRefused = () => new AppError(403, "CSRF_TOKEN_INVALID", "Missing or invalid CSRF token");

interface FrontDoorOptions {
  largeBodyPaths: readonly string[];
  beforeRouting?: BeforeRouting;
}

/**
 * The root HTTP app's shell: the front door every request passes (request log and metrics,
 * the Client API's guards, what answers before routing) and the error mapping; wiring.ts
 * mounts the surfaces on it.
 */
export function createHttpApp(app: App, opts: FrontDoorOptions) {
  const root = new Elysia({ name: "root" });
  return root.wrap(frontDoor(app, opts, () => root.server)).use(routeHooks(app));
}

/**
 * The front door: Elysia's wrap of every request's handler, so it runs once per request
 * before its route's hooks, whichever route (or none) matched. In order: the Client API's
 * guards (body size, per-IP rate limit and abuse block, CSRF on changes), then BEFORE_ROUTING
 * (the Bot API), then the route; around all of it one log line (method, path without tokens,
 * status, duration to the response head; never headers or cookies) and the request's
 * metrics, so answers given by the guards and before routing are logged and counted too.
 * One function rather than Elysia's onRequest hooks: with any such hook every request's
 * handler also built its URL and awaited each hook in turn; here, with the rate limits in
 * memory (one node), a request that passes awaits nothing before its route.
 */
function frontDoor(app: App, opts: FrontDoorOptions, server: () => Server<unknown> | null | undefined) {
  const metrics = metricsFor(app);
  const largeBodyPaths = new Set(opts.largeBodyPaths);
  const limiter = rateLimiter(app, "client");
  const guard = new AbuseGuard(
    () => app.config["limits.blockAfterRejections"],
    () => app.config["limits.blockSeconds"] * 1000,
    rateLimiter(app, "rejected"),
    () => app.config["limits.rateLimitKeys"],
  );
  const validCsrf = csrfCheck(app.secret);
  const proxyWatch = untrustedProxyWatch(app);
  const beforeRouting = opts.beforeRouting;
  const logsLine = requestLineGate(app);

  const refuseRate = async (request: Request, client: string, now: number, retryAfter: number) => {
    await guard.noteRejection(client, now);
    return clientErrorResponse(rateLimited(retryAfter), request);
  };
  const checkCsrf = (request: Request): Response | Promise<Response> | undefined => {
    if (!MUTATING.has(request.method)) return undefined;
    const cookie = cookieValue(request.headers.get("cookie"), CSRF_COOKIE);
    return validCsrf(request.headers.get("x-csrf-token"), cookie)
      ? undefined
      : clientErrorResponse(csrfRefused(), request);
  };
  /** The Client API's guards: a refusal (or its promise), or undefined to go on. */
  const guardClientApi = (request: Request, path: string): Response | Promise<Response | undefined> | undefined => {
    const tooBig = bodyProblem(request, path, largeBodyPaths);
    if (tooBig) return clientErrorResponse(tooBig, request);
    const ip = clientIp(request, server(), app.config.trustProxy);
    rememberClientIp(request, ip);
    const client = rateLimitKey(ip);
    const now = app.clock.now();
    proxyWatch.check(request, now);
    const blocked = guard.blockedFor(client, now);
    if (blocked > 0) return clientErrorResponse(rateLimited(blocked), request);
    const decision = limiter.checkNow(`ip:${client}`, app.config["limits.clientRps"], 1000, now);
    if (decision instanceof Promise)
      return decision.then((d) => (d.allowed ? checkCsrf(request) : refuseRate(request, client, now, d.retryAfter)));
    return decision.allowed ? checkCsrf(request) : refuseRate(request, client, now, decision.retryAfter);
  };

  const done = (request: Request, path: string, status: number, t0: number) => {
    const ms = performance.now() - t0;
    const redacted = redactPath(path);
    if (logsLine(status))
      app.log.info("request", { method: request.method, path: redacted, status, ms: Math.round(ms * 10) / 10 });
    metrics.observeRequest(request.method, routeLabel(request, path, redacted), status, ms / 1000);
  };

  // Elysia asks for the wrapper of a route's handler on every request: it is made once per handler
  const wrapped = new WeakMap<Handle, Handle>();
  const wrap =
    (handle: Handle): Handle =>
    async (request) => {
      const t0 = performance.now();
      const path = requestPath(request);
      let status = 500;
      try {
        let early: Response | Promise<Response | undefined> | undefined;
        try {
          early = isClientApiPath(path) ? guardClientApi(request, path) : beforeRouting?.(request, path);
          if (early instanceof Promise) early = await early;
        } catch (err) {
          // as routeHooks' onError answers what a route throws
          early = clientErrorResponse(toAppError("UNKNOWN", err, app.log, redactPath(path)), request);
        }
        const res = early ?? (await handle(request));
        if (res instanceof Response) status = res.status;
        return res;
      } finally {
        done(request, path, status, t0);
      }
    };
  return (handle: Handle) => {
    let w = wrapped.get(handle);
    if (!w) wrapped.set(handle, (w = wrap(handle)));
    return w;
  };
}

/** The route label of each request (metrics) and the mapping of anything thrown to the error envelope. */
function routeHooks(app: App) {
  return new Elysia({ name: "route-hooks" })
    .onTransform({ as: "global" }, ({ request, route }) => void routeOf.set(request, route))
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      const err = toAppError(code, error, app.log, redactPath(requestPath(request)));
      set.status = err.status;
      if (err.retryAfter !== undefined) set.headers["retry-after"] = String(err.retryAfter);
      set.headers["content-type"] = "application/json; charset=utf-8";
      return clientErrorBody(err, request);
    });
}

/** A method's own routes (the web app's `GET /*`) win over an ALL route, so the catch-all is one route per method. */
const HANDED_OVER_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** A part of a surface built on first use: the paths under PREFIX (the whole path) and what builds their routes. */
export interface SurfacePart {
  prefix: string;
  build: () => Promise<AnyElysia>;
}

/**
 * A surface of the root HTTP app built part by part, each part on the first request under its
 * prefix instead of at start (wiring.ts: the Client API, whose routes and the modules behind
 * them would be a large share of a restart's CPU and of an idle process's memory; most instances never use
 * some parts, the admin's say). Until then, and after, the root holds one catch-all per method
 * under PREFIX that hands the request, unread (the part parses and validates its own bodies), to
 * the Elysia app of the part with the longest prefix that holds its path, or to an empty one (a
 * 404 in the surface's envelope). The root's request log, metrics and guards have run once by
 * then; the part adds the route label and error mapping. Routes the root has itself under PREFIX
 * (the API reference, the operator log, the Bot API) are more specific and match first. Requests
 * that arrive while a part is being built wait for that one build. Once built, a part is handed
 * to `onBuilt`'s callback (wiring.ts: mountBuilt), which makes its routes the root's own, so from
 * then on a request reaches its route directly, as if the part had been there from the start; the
 * catch-all serves the requests of the build, paths no route matches and WebSocket upgrades.
 */
export function lazySurface(app: App, prefix: string, parts: readonly SurfacePart[]) {
  // the longest prefix first: /api/auth/sessions is its own part, not /api/auth's
  const byLength = [...parts].sort((a, b) => b.prefix.length - a.prefix.length);
  const handlers = new Map<SurfacePart, AnyElysia>();
  const building = new Map<SurfacePart, Promise<{ surface: AnyElysia; handler: AnyElysia }>>();
  const mounts: Array<(surface: AnyElysia) => void> = [];
  const builtSurfaces: AnyElysia[] = [];
  let firstBuilt: () => void;
  const anyBuilt = new Promise<void>((resolve) => (firstBuilt = resolve));
  let unmatched: AnyElysia | null = null;

  // the part's routes with the route label, error mapping and parameter check every request of it gets
  const handlerOf = (surface: AnyElysia) => {
    const composed = new Elysia({ name: "surface-part" })
      .use(routeHooks(app))
      // the part routes with Elysia's own router, not Bun's (the root's), and it leaves a
      // parameter that is not valid percent-encoding null: no such thing, as a 404
      .onTransform({ as: "global" }, ({ params }) => {
        for (const key in params) if ((params as Record<string, unknown>)[key] === null) throw notFound();
      })
      .use(surface);
    // the handler (its routes and their hooks) is composed here, not by the first request to each route
    void composed.fetch;
    return composed;
  };
  const built = (part: SurfacePart) => {
    let pending = building.get(part);
    if (!pending)
      building.set(
        part,
        (pending = (async () => {
          const t0 = performance.now();
          const surface = await part.build();
          const handler = handlerOf(surface);
          handlers.set(part, handler);
          builtSurfaces.push(surface);
          for (const mount of mounts) mount(surface);
          firstBuilt();
          app.log.info("surface built on its first use", {
            prefix: part.prefix,
            ms: Math.round((performance.now() - t0) * 10) / 10,
          });
          return { surface, handler };
        })()),
      );
    return pending;
  };
  const partOf = (path: string) =>
    byLength.find(
      (p) => path.startsWith(p.prefix) && (path.length === p.prefix.length || path[p.prefix.length] === "/"),
    );
  const handOver = async ({ request, server }: { request: Request; server: Server<unknown> | null }) => {
    const part = partOf(requestPath(request));
    const to = part ? (handlers.get(part) ?? (await built(part)).handler) : (unmatched ??= handlerOf(new Elysia()));
    // WebSocket upgrades and socket timeouts reach Bun's server through it
    to.server ??= server;
    return to.fetch(request);
  };
  let catchAll = new Elysia({ name: `lazy-surface:${prefix}` });
  for (const method of HANDED_OVER_METHODS)
    catchAll = catchAll.route(method, `${prefix}/*`, handOver, { parse: "none", detail: { hide: true } });
  return {
    /** every part's surface, each built now if no request has built it yet */
    surfaces: async () => {
      const surfaces: AnyElysia[] = [];
      // in the table's order, whatever order requests built them in
      for (const part of parts) surfaces.push((await built(part)).surface);
      return surfaces;
    },
    /** mounted on the root in place of the surface */
    catchAll,
    /** calls MOUNT with each part's surface as it is built (and with those built already) */
    onBuilt(mount: (surface: AnyElysia) => void) {
      mounts.push(mount);
      for (const surface of builtSurfaces) mount(surface);
    },
    /** settles once a part is built (never, if nothing builds one) */
    anyBuilt,
    /** whether ROUTE is one of the catch-alls rather than a route of the surface */
    isCatchAll: (route: { path: string }) => route.path === `${prefix}/*`,
  };
}

/** Bun's router takes these methods per path (Elysia's Bun adapter: mapRoutes). */
const BUN_ROUTED_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "PATCH", "POST", "PUT"]);

/**
 * Makes SURFACE's routes ROOT's own. A root that listens already also maps them into Bun's
 * router, as its listen mapped the routes it had: Elysia does that for a root's lazy modules
 * (`root.use(promise)`) only once every one of them has settled, which a part nobody asks for
 * never does, and until then its routes would be reached through the catch-all (an extra hop on
 * every request). The map is made as Elysia's Bun adapter makes it for a root like ours (every handler a
 * function, no static response, no optional parameter, the front door's wrap as the one
 * higher-order function): each route's Bun handler composed on its first request.
 */
export function mountBuilt(root: AnyElysia, surface: AnyElysia): void {
  root.use(surface).compile();
  const server = root.server;
  // not listening yet: its listen maps every route it has then
  if (!server) return;
  const routes: Record<string, Record<string, (request: Request) => unknown>> = {};
  const tree = (root as unknown as { routeTree: Record<string, unknown> }).routeTree;
  for (const route of root.router.history as InternalRoute[]) {
    const { method, path } = route;
    // WebSocket upgrades, wildcards and paths with an optional parameter stay with root.fetch
    if (!BUN_ROUTED_METHODS.has(method) || path.endsWith("*") || path.includes("?")) continue;
    if (typeof route.handler !== "function" || (method === "GET" && `WS_${path}` in tree)) continue;
    let handle: ((request: Request) => unknown) | undefined;
    const handler = (request: Request) => (handle ??= createBunRouteHandler(root, route))(request);
    const byMethod = (routes[encodeURI(path)] ??= {});
    byMethod[method] ??= handler;
  }
  server.reload({ fetch: root.fetch, routes: removeTrailingPath(routes) } as never);
}
