import type { App } from "../app";

export const ACCESS_COOKIE = "auth_access_token";
export const REFRESH_COOKIE = "auth_refresh_token";
export const CSRF_COOKIE = "csrf_token";

export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    // every signed-in request parses its cookies, and session tokens are never escaped
    if (!raw.includes("%")) {
      out[name] = raw;
      continue;
    }
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
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
