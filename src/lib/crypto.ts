import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const sha256Hex = (input: string | Uint8Array): string => createHash("sha256").update(input).digest("hex");

export const hmacSha256 = (key: string | Uint8Array, input: string): string =>
  createHmac("sha256", key).update(input).digest("base64url");

/** Constant-time string comparison; unequal lengths compare false without early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** bcrypt hash computed on Bun's worker pool, so hashing never stalls the event loop. */
export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "bcrypt", cost: 10 });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash);
