import type { App } from "../app";

export const ACCESS_COOKIE = "auth_access_token";
export const REFRESH_COOKIE = "auth_refresh_token";
export const CSRF_COOKIE = "csrf_token";

/**
 * The value of the cookie NAME in a Cookie header (the last one when it is sent twice; names and
 * values trimmed, values URL-decoded when escaped), found without splitting the whole header:
 * every signed-in request looks up its session cookies, a few of the header's cookies.
 */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  let found: string | undefined;
  for (let at = header.indexOf(name); at >= 0; at = header.indexOf(name, at + 1)) {
    // the whole name of a cookie: only blanks between it and the ';' (or the start) before it…
    let before = at - 1;
    while (before >= 0 && isBlank(header[before]!)) before--;
    if (before >= 0 && header[before] !== ";") continue;
    // …and between it and its '='
    let eq = at + name.length;
    while (eq < header.length && isBlank(header[eq]!)) eq++;
    if (header[eq] !== "=") continue;
    const end = header.indexOf(";", eq);
    found = decodeCookieValue(header.slice(eq + 1, end < 0 ? header.length : end).trim());
  }
  return found;
}

/** Blank as String.prototype.trim sees it (names and values are trimmed). */
const isBlank = (ch: string) => ch.trim() === "";

function decodeCookieValue(raw: string): string {
  // every signed-in request reads its cookies, and session tokens are never escaped
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export interface CookieOptions {
  maxAgeSeconds: number;
  httpOnly: boolean;
}

/** One Set-Cookie value: path /, SameSite=Lax, Secure when the instance is served over https. */
export function serializeCookie(app: App, name: string, value: string, opts: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    "Path=/",
    `Max-Age=${Math.max(0, Math.round(opts.maxAgeSeconds))}`,
    "SameSite=Lax",
  ];
  if (opts.httpOnly) parts.push("HttpOnly");
  if (app.config.baseUrl.startsWith("https://")) parts.push("Secure");
  return parts.join("; ");
}

export const clearCookie = (app: App, name: string, httpOnly = true) =>
  serializeCookie(app, name, "", { maxAgeSeconds: 0, httpOnly });
