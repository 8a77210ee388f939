import { randomBytes } from "./crypto";

// cuid2's own generator hashes with a pure-JS SHA3 and bignumber.js (≈0.4 ms an id, ~30% of a
// message send's CPU). This is the same construction (time, random salt, a counter and a
// per-process fingerprint through SHA3-512, rendered in base 36) with Bun's native hasher over a
// binary input, random bytes drawn from a pool and the digest rendered 4 base-36 digits per
// 32-bit word instead of through a BigInt: ≈1.5 µs an id (≈3.4 µs with hex strings and a BigInt).
//
// One difference in shape: ids made one after another share their first 4 characters (a random
// letter and 3 digits, drawn anew every CUID_WINDOW ids) and only the other 20 come from the digest.
// Every table's cuid column has a unique index, and fully random keys put each new row in a
// different leaf of it: a group commit of 45 messages then wrote ≈ 58 pages to the WAL, 45 of
// them leaves of the cuid index; with the shared prefix a window's ids sit in one or two leaves
// (≈ 13 pages; time-ordered ids: 11). The prefix tells only that ids were made close together,
// which their objects' times show anyway; the 20 digest characters (≈ 103 bits) keep ids
// unguessable and collision-free. A short random name cut from an id takes its end, not its start.
let counter = Math.floor(Math.random() * 476782367);
const CUID_LENGTH = 24;
/** 36^4: a 32-bit word modulo this is 4 base-36 digits (bias below 1/2,500 per digit group) */
const FOUR_DIGITS = 36 ** 4;
const ZEROS = ["", "0", "00", "000"];
// the hash input: time (8 bytes), counter (4), salt (16), fingerprint (16)
const input = new Uint8Array(44);
const inputView = new DataView(input.buffer);
input.set(randomBytes(16), 28);
/** random bytes drawn ahead, each used once: one getRandomValues call per ≈ 250 ids instead of one per id */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
/** the digest is written over the same bytes each time: a fresh one (its buffer, a DataView on it) cost a third of an id */
const digest = new Uint8Array(64);
const words = new DataView(digest.buffer);

/** How many ids in a row share their first 4 characters (about one leaf of an index). */
export const CUID_WINDOW = 64;
let prefix = "";
let prefixLeft = 0;

/** Public string id of an object (the Client API shows these; rows keep an integer key too). */
export function newCuid(): string {
  if (poolAt + 20 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  if (prefixLeft-- <= 0) {
    const digits = (((pool[poolAt]! << 16) | (pool[poolAt + 1]! << 8) | pool[poolAt + 2]!) % 36 ** 3).toString(36);
    prefix = String.fromCharCode(97 + (pool[poolAt + 3]! % 26)) + ZEROS[3 - digits.length] + digits;
    prefixLeft = CUID_WINDOW - 1;
    poolAt += 4;
  }
  inputView.setFloat64(0, Date.now());
  inputView.setUint32(8, counter++ >>> 0);
  for (let i = 0; i < 16; i++) input[12 + i] = pool[poolAt + i]!;
  poolAt += 16;
  Bun.CryptoHasher.hash("sha3-512", input, digest);
  let id = prefix;
  for (let w = 0; id.length < CUID_LENGTH; w++) {
    const digits = (words.getUint32(w * 4) % FOUR_DIGITS).toString(36);
    id += ZEROS[4 - digits.length] + digits;
  }
  return id;
}

/** cuid2's own check (isCuid): 2 to 32 lower-case letters and digits. */
export const looksLikeCuid = (value: string): boolean => /^[0-9a-z]{2,32}$/.test(value);

/** URL-safe random secret with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
