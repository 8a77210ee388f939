import { t } from "elysia";
import { fieldError, validationError } from "../lib/errors";
import { decodeCursor, parseLimit } from "../lib/paging";

/* Request input the Client API's routes share: the cursor query, boolean flags, optional JSON bodies. */

/** `?cursor=&limit=` of every cursor-paged list (a search cursor may carry a 64-character hashtag). */
export const PageQuery = t.Object({
  cursor: t.Optional(
    t.String({
      maxLength: 400,
      description: "pageInfo.nextCursor of the previous page (in search: nextCursor or cursors.<type>)",
    }),
  ),
  limit: t.Optional(t.String({ maxLength: 10, description: "items per page, 1 to 100 (default 20)" })),
});

/** Decodes PageQuery (bad values are VALIDATION_ERROR naming `cursor` or `limit`). */
export const pageRequest = (query: { cursor?: string; limit?: string }) => ({
  cursor: decodeCursor(query.cursor),
  limit: parseLimit(query.limit),
});

/** A boolean query flag: true/1 or false/0 (absent or empty: false); anything else is a VALIDATION_ERROR on FIELD. */
export function parseFlag(raw: string | undefined, field: string): boolean {
  if (raw === undefined || raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw fieldError(field, "must be true, false, 1 or 0");
}

/**
 * Body parser for endpoints whose JSON body may be left out: an absent or blank body is `{}`,
 * but malformed JSON or a non-object is a 400 (Elysia's parser for an optional body would
 * silently drop it). Elysia reports an error thrown here as a PARSE error, which
 * src/http/errors.ts answers with 400 VALIDATION_ERROR `fieldErrors.body`.
 */
export async function jsonOrEmpty({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw validationError({ body: ["is not valid JSON"] }, "Request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw validationError({ body: ["must be a JSON object"] });
  return body;
}
