import { fieldError } from "./errors";

/** Longest description (alt text) of an image, in characters. */
export const MAX_ALT_LENGTH = 1500;
/** Longest content warning of a post or comment, in characters. */
export const MAX_CONTENT_WARNING_LENGTH = 200;

const chars = (s: string) => [...s].length;

/**
 * An image's description as given for FIELD: trimmed, at most MAX_ALT_LENGTH characters;
 * undefined when absent or empty (an image without a description has none, never a made-up one).
 */
export function checkAlt(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw fieldError(field, "must be a string");
  const alt = value.trim();
  if (chars(alt) > MAX_ALT_LENGTH) throw fieldError(field, `must be at most ${MAX_ALT_LENGTH} characters`);
  return alt.length > 0 ? alt : undefined;
}

/** A content warning as given for FIELD: trimmed, at most MAX_CONTENT_WARNING_LENGTH characters; null when empty. */
export function checkContentWarning(value: string | null | undefined, field = "contentWarning"): string | null {
  const cw = (value ?? "").trim();
  if (chars(cw) > MAX_CONTENT_WARNING_LENGTH)
    throw fieldError(field, `must be at most ${MAX_CONTENT_WARNING_LENGTH} characters`);
  return cw.length > 0 ? cw : null;
}
