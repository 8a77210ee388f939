import { fieldError } from "./errors";

/**
 * Keyset paging shared by every list: a cursor is an opaque base64url of the last item's
 * sort key (time and integer id, so ties never skip or repeat rows). No OFFSET anywhere.
 */
export interface Cursor {
  /** sort time (ms) of the last item returned */
  t: number;
  /** integer id of the last item returned, the tie-breaker */
  id: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.t, c.id])).toString("base64url");
}

/** Decodes a cursor from a query parameter; a malformed one is a VALIDATION_ERROR on FIELD. */
export function decodeCursor(raw: string | undefined | null, field = "cursor"): Cursor | null {
  if (raw === undefined || raw === null || raw === "") return null;
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && Number.isSafeInteger(v[1]))
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
 * Given rows fetched with limit + 1 in descending (t, id) order, returns the page and the
 * cursor for the next one (null when the list has ended).
 */
export function pageOf<T>(
  rows: T[],
  limit: number,
  key: (row: T) => Cursor,
): { items: T[]; nextCursor: string | null } {
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const nextCursor = rows.length > limit ? encodeCursor(key(items[items.length - 1]!)) : null;
  return { items, nextCursor };
}
