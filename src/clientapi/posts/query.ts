import { t } from "elysia";
import { fieldError } from "../../lib/errors";
import { decodeCursor, parseLimit } from "../../lib/paging";

/** `?cursor=&limit=` of every cursor-paged social list. */
export const PageQuery = t.Object({ cursor: t.Optional(t.String({ maxLength: 200 })), limit: t.Optional(t.String({ maxLength: 10 })) });

/** Decodes PageQuery (bad values are VALIDATION_ERROR naming `cursor` or `limit`). */
export const pageRequest = (query: { cursor?: string; limit?: string }) => ({ cursor: decodeCursor(query.cursor), limit: parseLimit(query.limit) });

/** A boolean query flag: true/1 or false/0 (absent or empty: false); anything else is a VALIDATION_ERROR on FIELD. */
export function parseFlag(raw: string | undefined, field: string): boolean {
  if (raw === undefined || raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw fieldError(field, "must be true, false, 1 or 0");
}
