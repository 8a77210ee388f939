import { availableParallelism } from "node:os";
import pLimit from "p-limit";

/*
 * Hashes, HMACs and random values from Bun's native hasher and Web Crypto, not node:crypto:
 * loading that module costs every process CPU and memory at start, for functions these few
 * lines cover.
 */

/** An incremental SHA-256 (`update` as often as needed, then `digest("hex")`). */
export const sha256 = (): Bun.CryptoHasher => new Bun.CryptoHasher("sha256");

/** SHA-256 in hex, in one native call (every signed-in request and Bot API call hashes its token). */
export const sha256Hex = (input: string | Uint8Array): string => Bun.SHA256.hash(input, "hex");

/** An incremental HMAC-SHA256 under KEY. */
export const hmacSha256Of = (key: string | Uint8Array): Bun.CryptoHasher => new Bun.CryptoHasher("sha256", key);

export const hmacSha256 = (key: string | Uint8Array, input: string): string =>
  hmacSha256Of(key).update(input).digest("base64url");

/** N cryptographically random bytes. */
export const randomBytes = (n: number): Buffer => Buffer.from(crypto.getRandomValues(new Uint8Array(n)));

/** A uniformly random integer in [MIN, MAX) (a range of at most 2^32), cryptographically random. */
export function randomInt(min: number, max: number): number {
  const range = max - min;
  // values past the last whole multiple of RANGE are drawn again, so every outcome is equally likely
  const limit = Math.floor(0x1_0000_0000 / range) * range;
  const draw = new Uint32Array(1);
  do crypto.getRandomValues(draw);
  while (draw[0]! >= limit);
  return min + (draw[0]! % range);
}

/**
 * Constant-time string comparison: every code unit of A is compared, whatever differs, so the
 * time depends on A's length only (unequal lengths compare false the same way). A loop rather
 * than crypto.timingSafeEqual, whose two Buffer copies cost more than the comparison (every
 * signed-in request and Bot API call compares a token hash).
 */
export function safeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  // past B's end charCodeAt is NaN, and NaN | 0 is 0: no branch on where B ends
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}

/**
 * bcrypt runs on Bun's worker pool, so it never stalls the event loop, but every hash in
 * flight takes a core: a burst of logins on a small machine left every other request waiting
 * for a core. Hashes wait their turn instead, leaving one core to everything else.
 */
const passwordWork = pLimit(Math.max(1, availableParallelism() - 1));

export const hashPassword = (password: string): Promise<string> =>
  passwordWork(() => Bun.password.hash(password, { algorithm: "bcrypt", cost: 10 }));

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  passwordWork(() => Bun.password.verify(password, hash));
