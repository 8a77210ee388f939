import { fieldError } from "./errors";

/**
 * Keyset paging shared by every list: a cursor is an opaque base64url of the last item's
 * sort key and integer id (the tie-breaker, so ties never skip or repeat rows). Most lists
 * sort by time; search ranks by score or goes by name. No OFFSET anywhere.
 */
export interface Cursor<K extends number | string = number> {
  /** sort key of the last item returned: its time (ms), or its rank score or name in search */
  t: K;
  /** integer id of the last item returned, the tie-breaker */
  id: number;
}

/** What a list sorts by, which decides what a valid cursor holds. */
export type SortKey = "time" | "score" | "name";

/** Longest name a cursor carries (hashtags are at most 64 characters, usernames 32). */
const MAX_NAME_KEY = 256;

const validKey: Record<SortKey, (v: unknown) => boolean> = {
  time: (v) => Number.isSafeInteger(v),
  score: (v) => typeof v === "number" && Number.isFinite(v),
  name: (v) => typeof v === "string" && v.length <= MAX_NAME_KEY,
};

export function encodeCursor(c: Cursor<number | string>): string {
  return Buffer.from(JSON.stringify([c.t, c.id])).toString("base64url");
}

/** Decodes a cursor from a query parameter; a malformed one is a VALIDATION_ERROR on FIELD. */
export function decodeCursor(raw: string | undefined | null, field?: string, sort?: "time" | "score"): Cursor | null;
export function decodeCursor(raw: string | undefined | null, field: string, sort: "name"): Cursor<string> | null;
export function decodeCursor(
  raw: string | undefined | null,
  field = "cursor",
  sort: SortKey = "time",
): Cursor<number | string> | null {
  if (raw === undefined || raw === null || raw === "") return null;
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && validKey[sort](v[0]) && Number.isSafeInteger(v[1]))
      return { t: v[0], id: v[1] };
  } catch {
    // falls through to the validation error
  }
  throw fieldError(field, "is not a valid cursor");
}

/** Parses `?limit=`: absent → fallback; otherwise an integer 1..max, else VALIDATION_ERROR. */
export function parseLimit(raw: string | number | undefined | null, fallback = 20, max = 100): number {
  if (raw === undefined || raw === null || raw === "") return fallback;
  const n = typeof raw === "number" ? raw : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw fieldError("limit", `must be an integer from 1 to ${max}`);
  return n;
}

/**
 * Given rows fetched with limit + 1 in the list's (t, id) order, returns the page and the
 * cursor for the next one (null when the list has ended).
 */
export function pageOf<T>(
  rows: T[],
  limit: number,
  key: (row: T) => Cursor<number | string>,
): { items: T[]; nextCursor: string | null } {
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const nextCursor = rows.length > limit ? encodeCursor(key(items[items.length - 1]!)) : null;
  return { items, nextCursor };
}
