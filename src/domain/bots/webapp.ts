import { hmacSha256Of, safeEqual, sha256Hex } from "../../lib/crypto";

/**
 * Mini-app launch data, signed as the spec's verification steps say: the key is
 * HMAC-SHA256(key = "WebAppData", message = SHA-256 digest of the token part after the colon);
 * the hash is the hex HMAC-SHA256 of the data-check string (fields but `hash`, sorted by key,
 * `key=value` joined by newlines) under that key. The server keeps only the digest of the
 * token secret, which is exactly what the key needs, so it can sign without the token.
 */
export function webAppKey(tokenSecretHashHex: string): Buffer {
  return hmacSha256Of("WebAppData").update(Buffer.from(tokenSecretHashHex, "hex")).digest();
}

export const dataCheckString = (fields: Record<string, string>): string =>
  Object.keys(fields)
    .filter((k) => k !== "hash")
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join("\n");

/** The query string a mini-app receives in `#tgWebAppData=`, with its `hash`. */
export function signWebAppData(tokenSecretHashHex: string, fields: Record<string, string>): string {
  const hash = hmacSha256Of(webAppKey(tokenSecretHashHex)).update(dataCheckString(fields)).digest("hex");
  return new URLSearchParams({ ...fields, hash }).toString();
}

/** Bot side: checks launch data against the bot TOKEN; returns the fields or null when forged. */
export function verifyWebAppData(token: string, initData: string): Record<string, string> | null {
  const secret = token.slice(token.indexOf(":") + 1);
  const fields = Object.fromEntries(new URLSearchParams(initData));
  const hash = fields.hash;
  if (!hash) return null;
  const expected = hmacSha256Of(webAppKey(sha256Hex(secret)))
    .update(dataCheckString(fields))
    .digest("hex");
  return safeEqual(hash, expected) ? fields : null;
}
