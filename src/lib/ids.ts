import { randomBytes } from "./crypto";

// cuid2's own generator hashes with a pure-JS SHA3 and bignumber.js (≈0.4 ms an id, ~30% of a
// message send's CPU). This is the same construction — time, random salt, a counter and a
// per-process fingerprint through SHA3-512, rendered in base 36 behind a random letter — with
// Bun's native hasher and BigInt (≈15 µs), so ids keep cuid2's shape.
let counter = Math.floor(Math.random() * 476782367);
const fingerprint = randomBytes(32).toString("hex");
const CUID_LENGTH = 24;

/** Public string id of an object (the Client API shows these; rows keep an integer key too). */
export function newCuid(): string {
  const letter = String.fromCharCode(97 + Math.floor(Math.random() * 26));
  const salt = randomBytes(16).toString("hex");
  const digest = new Bun.CryptoHasher("sha3-512")
    .update(Date.now().toString(36) + salt + (counter++).toString(36) + fingerprint)
    .digest("hex");
  return (
    letter +
    BigInt("0x" + digest)
      .toString(36)
      .slice(1, CUID_LENGTH)
  );
}

/** cuid2's own check (isCuid): 2 to 32 lower-case letters and digits. */
export const looksLikeCuid = (value: string): boolean => /^[0-9a-z]{2,32}$/.test(value);

/** URL-safe random secret with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
