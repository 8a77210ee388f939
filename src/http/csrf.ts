import { hmacSha256, safeEqual } from "../lib/crypto";
import { randomToken } from "../lib/ids";

/** Double-submit CSRF token `value.signature`; the signature binds the value to this instance. */
export function issueCsrfToken(secret: string): string {
  const value = randomToken(18);
  return `${value}.${hmacSha256(secret, `csrf:${value}`)}`;
}

export function isValidCsrf(secret: string, header: string | null | undefined, cookie: string | undefined): boolean {
  if (!header || !cookie) return false;
  if (!safeEqual(header, cookie)) return false;
  const dot = header.indexOf(".");
  if (dot <= 0) return false;
  const value = header.slice(0, dot);
  return safeEqual(header.slice(dot + 1), hmacSha256(secret, `csrf:${value}`));
}
