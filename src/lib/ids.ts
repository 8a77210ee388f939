import { createId, isCuid } from "@paralleldrive/cuid2";
import { randomBytes } from "node:crypto";

/** Public string id of an object (the Client API shows these; rows keep an integer key too). */
export const newCuid = (): string => createId();
export const looksLikeCuid = (value: string): boolean => isCuid(value);

/** URL-safe random secret with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
