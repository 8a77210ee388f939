import { hmacSha256, safeEqual } from "../lib/crypto";
import { randomToken } from "../lib/ids";

/** Double-submit CSRF token `value.signature`; the signature binds the value to this instance. */
export function issueCsrfToken(secret: string): string {
  const value = randomToken(18);
  return `${value}.${hmacSha256(secret, `csrf:${value}`)}`;
}

/** Whether TOKEN carries its signature under SECRET. */
function isSigned(secret: string, token: string): boolean {
  const dot = token.indexOf(".");
  if (dot <= 0) return false;
  return safeEqual(token.slice(dot + 1), hmacSha256(secret, `csrf:${token.slice(0, dot)}`));
}

/** Signed tokens a csrfCheck remembers at most; past this it starts again empty. */
const SIGNED_KEPT_MAX = 10_000;

/**
 * The CSRF check of one instance's SECRET: the X-CSRF-Token header must equal the csrf_token
 * cookie and be signed by SECRET. It remembers the tokens whose signature it has checked:
 * a browser sends the same token with every change it makes, and the HMAC is the larger part of
 * a POST's CSRF check. A signature under a fixed secret never stops being valid, so the
 * memory is exact; only tokens that passed are kept (made-up ones cannot fill it), and the
 * header still has to equal the cookie on every request.
 */
export function csrfCheck(secret: string): (header: string | null | undefined, cookie: string | undefined) => boolean {
  const signed = new Set<string>();
  return (header, cookie) => {
    if (!header || !cookie || !safeEqual(header, cookie)) return false;
    if (signed.has(header)) return true;
    if (!isSigned(secret, header)) return false;
    if (signed.size >= SIGNED_KEPT_MAX) signed.clear();
    signed.add(header);
    return true;
  };
}
