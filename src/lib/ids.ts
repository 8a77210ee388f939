import { randomBytes } from "./crypto";

// cuid2's own generator hashes time, a random salt, a counter and a fingerprint through a pure-JS
// SHA3 with bignumber.js (a large share of a message send's CPU): it mixes those sources
// because it cannot count on a cryptographic random source everywhere. Here there always is one
// (crypto.getRandomValues), so an id's digits are drawn from it directly, 4 base-36 digits per
// 32-bit word, with the random bytes taken from a pool (one getRandomValues call per many ids):
// cheaper than hashing the same inputs, even with Bun's native SHA3-512.
//
// One difference in shape: ids made one after another share their first 4 characters (a random
// letter and 3 digits, drawn anew every CUID_WINDOW ids) and only the other 20 are drawn per id.
// Every table's cuid column has a unique index, and fully random keys put each new row in a
// different leaf of it: a group commit of many messages then writes a leaf of the cuid index
// per message to the WAL; with the shared prefix a window's ids sit in one or two leaves, nearly
// as few pages as time-ordered ids write. The prefix tells only that ids were made close together,
// which their objects' times show anyway; the 20 random characters (≈ 103 bits) keep ids
// unguessable and collision-free. A short random name cut from an id takes its end, not its start.
const CUID_LENGTH = 24;
/** 36^4: a 32-bit word modulo this is 4 base-36 digits (bias below 1/2,500 per digit group) */
const FOUR_DIGITS = 36 ** 4;
const ZEROS = ["", "0", "00", "000"];
/** random bytes drawn ahead, each used once */
const pool = new Uint8Array(4096);
const poolWords = new DataView(pool.buffer);
let poolAt = pool.length;
/** the most an id takes from the pool: a new prefix (4 bytes) and 5 words */
const BYTES_PER_ID = 4 + 20;

/** How many ids in a row share their first 4 characters (about one leaf of an index). */
export const CUID_WINDOW = 64;
let prefix = "";
let prefixLeft = 0;

/** Public string id of an object (the Client API shows these; rows keep an integer key too). */
export function newCuid(): string {
  if (poolAt + BYTES_PER_ID > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  if (prefixLeft-- <= 0) {
    const digits = (((pool[poolAt]! << 16) | (pool[poolAt + 1]! << 8) | pool[poolAt + 2]!) % 36 ** 3).toString(36);
    prefix = String.fromCharCode(97 + (pool[poolAt + 3]! % 26)) + ZEROS[3 - digits.length] + digits;
    prefixLeft = CUID_WINDOW - 1;
    poolAt += 4;
  }
  let id = prefix;
  for (; id.length < CUID_LENGTH; poolAt += 4) {
    const digits = (poolWords.getUint32(poolAt) % FOUR_DIGITS).toString(36);
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
