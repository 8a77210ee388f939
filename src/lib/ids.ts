import { randomBytes } from "./crypto";

// cuid2's own generator hashes with a pure-JS SHA3 and bignumber.js (≈0.4 ms an id, ~30% of a
// message send's CPU). This is the same construction (time, random salt, a counter and a
// per-process fingerprint through SHA3-512, rendered in base 36 behind a random letter) with
// Bun's native hasher over a binary input, random bytes drawn from a pool and the digest
// rendered 4 base-36 digits per 32-bit word instead of through a BigInt: ≈1.5 µs an id
// (≈3.4 µs with hex strings and a BigInt), same shape and 119 bits of the digest per id.
let counter = Math.floor(Math.random() * 476782367);
const CUID_LENGTH = 24;
/** 36^4: a 32-bit word modulo this is 4 base-36 digits (bias below 1/2,500 per digit group) */
const FOUR_DIGITS = 36 ** 4;
const ZEROS = ["", "0", "00", "000"];
// the hash input: time (8 bytes), counter (4), salt (16), fingerprint (16)
const input = new Uint8Array(44);
const inputView = new DataView(input.buffer);
input.set(randomBytes(16), 28);
/** random bytes drawn ahead, each used once: one getRandomValues call per 240 ids instead of one per id */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** Public string id of an object (the Client API shows these; rows keep an integer key too). */
export function newCuid(): string {
  if (poolAt + 17 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  inputView.setFloat64(0, Date.now());
  inputView.setUint32(8, counter++ >>> 0);
  input.set(pool.subarray(poolAt, poolAt + 16), 12);
  let id = String.fromCharCode(97 + (pool[poolAt + 16]! % 26));
  poolAt += 17;
  const digest = Bun.CryptoHasher.hash("sha3-512", input) as Uint8Array;
  const words = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  for (let w = 0; id.length < CUID_LENGTH; w++) {
    const digits = (words.getUint32(w * 4) % FOUR_DIGITS).toString(36);
    id += ZEROS[4 - digits.length] + digits;
  }
  return id.slice(0, CUID_LENGTH);
}

/** cuid2's own check (isCuid): 2 to 32 lower-case letters and digits. */
export const looksLikeCuid = (value: string): boolean => /^[0-9a-z]{2,32}$/.test(value);

/** URL-safe random secret with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
