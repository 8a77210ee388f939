import { Elysia } from "elysia";
import { defineService, type App } from "../app";
import { cacheStampsOf } from "../cache/stamps";
import {
  authenticate,
  authenticateCached,
  assertUsable,
  SessionCache,
  type Authenticated,
  type IssuedTokens,
} from "../domain/sessions/service";
import { deviceBanned } from "../domain/auth/devices";
import type { UserRow } from "../domain/users/table";
import { unauthorized } from "../lib/errors";
import { clientIp } from "./client-ip";
import { ACCESS_COOKIE, REFRESH_COOKIE, cookieValue, serializeCookie } from "./cookies";

/** Session lifetimes from config, in ms. */
export const sessionTtls = (app: App) => ({
  accessTtlMs: app.config["auth.accessTtlSeconds"] * 1000,
  refreshTtlMs: app.config["auth.refreshTtlSeconds"] * 1000,
});

/** Set-Cookie values for a fresh or renewed pair of session tokens. */
export function sessionCookies(app: App, tokens: IssuedTokens): string[] {
  const now = app.clock.now();
  return [
    serializeCookie(app, ACCESS_COOKIE, tokens.accessToken, {
      httpOnly: true,
      maxAgeSeconds: (tokens.accessExpiresAt - now) / 1000,
    }),
    serializeCookie(app, REFRESH_COOKIE, tokens.refreshToken, {
      httpOnly: true,
      maxAgeSeconds: (tokens.refreshExpiresAt - now) / 1000,
    }),
  ];
}

/** Appends Set-Cookie values to Elysia's response headers. */
export function addSetCookies(set: { headers: Record<string, unknown> }, cookies: string[]): void {
  const existing = set.headers["set-cookie"];
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  set.headers["set-cookie"] = [...list, ...cookies];
}

/** The name of the session-cookie security scheme in /api/openapi.json (src/clientapi/openapi.ts). */
export const SESSION_SCHEME = "session";

/** The caller's IP of each Client API request, as the root's front door (http/server.ts) found it for the rate limit. */
const clientIps = new WeakMap<Request, string>();

/** Keeps IP, found by the root's front door for REQUEST's rate limit, so `ip` below need not ask the socket again. */
export function rememberClientIp(request: Request, ip: string): void {
  clientIps.set(request, ip);
}

/**
 * Per-request context every Client API route plugin uses: the caller's IP, and the
 * `auth` macro. A route with `{ auth: true }` receives `user` and `session` (renewing
 * cookies when the access token had expired) or fails with UNAUTHORIZED.
 */
export function requestContext(app: App) {
  // hooks take their context destructured: Elysia reads which parts a hook uses from its
  // source, and a hook using the whole context makes every request parse its headers, cookies and query
  return (
    new Elysia({ name: "request-context" })
      // the root's front door found every Client API request's IP; only a surface handling requests
      // without the root (none in a server) falls back to the headers, or "local". Not asking for
      // `server` here spares every request Elysia's getter for it
      .derive({ as: "global" }, ({ request }) => ({
        ip: clientIps.get(request) ?? clientIp(request, null, app.config.trustProxy),
      }))
      .macro({
        auth: {
          // the OpenAPI document shows the route as needing a session (src/clientapi/openapi.ts adds its errors)
          detail: { security: [{ [SESSION_SCHEME]: [] }] },
          // transform runs before the body is validated: a request without a usable session is
          // refused at the cost of a cookie lookup, never of a schema walk over what it sent
          transform: ({ request, ip }) => checkSignedIn(app, request, ip),
          resolve: ({ request, ip, set }) => requireSignedIn(app, request, ip, set),
        },
      })
  );
}

/** The session found for a request by checkSignedIn (a transform, before validation), for its resolve. */
const signedIn = new WeakMap<Request, Authenticated>();

/**
 * The `auth` macro's check, as a transform hook (before the body is validated): the signed-in,
 * usable account on a device that is not banned, or UNAUTHORIZED / ACCOUNT_DISABLED / DEVICE_BANNED.
 */
export function checkSignedIn(app: App, request: Request, ip: string): void | Promise<void> {
  const found = resolveAuth(app, request, ip);
  // a kept session is checked without a promise (Elysia awaits the hook either way)
  return found instanceof Promise ? found.then((f) => acceptSignedIn(request, f)) : acceptSignedIn(request, found);
}

function acceptSignedIn(request: Request, found: Authenticated | null): void {
  if (!found) throw unauthorized();
  assertUsable(found.user);
  if (found.deviceBanned) throw deviceBanned();
  signedIn.set(request, found);
}

/** The account checkSignedIn found for REQUEST, for macros that check more of it before validation. */
export const checkedAccount = (request: Request): UserRow | undefined => signedIn.get(request)?.user;

/**
 * The `auth` macro's result, for macros that build on it: the account and session
 * checkSignedIn found (checking now if it did not run), renewing cookies when the access
 * token had expired.
 */
export function requireSignedIn(app: App, request: Request, ip: string, set: unknown): SignedIn | Promise<SignedIn> {
  const found = signedIn.get(request);
  if (found) return signedInResult(app, found, set);
  const checked = checkSignedIn(app, request, ip);
  const result = () => signedInResult(app, signedIn.get(request)!, set);
  return checked instanceof Promise ? checked.then(result) : result();
}

type SignedIn = Pick<Authenticated, "user" | "session">;

function signedInResult(app: App, found: Authenticated, set: unknown): SignedIn {
  if (found.renewed) addSetCookies(set as never, sessionCookies(app, found.renewed));
  return { user: found.user, session: found.session };
}

/** The sessions read by this App's requests (see SessionCache). */
const sessionCache = defineService("sessions:cache", (app) => new SessionCache(cacheStampsOf(app)));

/**
 * The session behind REQUEST's cookies (see authenticate); answered without a promise when the
 * App keeps the session and nothing needs writing, as for most signed-in requests.
 */
export function resolveAuth(
  app: App,
  request: Request,
  ip: string,
): Authenticated | null | Promise<Authenticated | null> {
  const header = request.headers.get("cookie");
  const access = cookieValue(header, ACCESS_COOKIE);
  const refresh = cookieValue(header, REFRESH_COOKIE);
  if (!access && !refresh) return null;
  const cache = app.services.get(sessionCache);
  const now = app.clock.now();
  return (
    authenticateCached(now, access, cache) ??
    authenticate(app.db, now, sessionTtls(app), { access, refresh, ip }, cache)
  );
}
