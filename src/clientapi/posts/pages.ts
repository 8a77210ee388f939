import { t } from "elysia";
import type { Db } from "../../db";
import { likersPage, type PageRequest } from "../../domain/posts/feed";
import { jsonText, ok, type SetHeaders } from "../../http/envelope";
import { serializePublicUser } from "../serializers/account";
import { postJson } from "./serialize";

/* Paged answers the posts, comments and people routes share. */

export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** `{users, pageInfo}` of who liked a post or a comment, as JSON text. */
export async function likersJson(
  db: Db,
  viewerId: number,
  target: { postId: number } | { commentId: number },
  page: PageRequest,
): Promise<string> {
  const found = await likersPage(db, viewerId, target, page);
  return JSON.stringify(
    ok({ users: found.items.map(serializePublicUser), pageInfo: { nextCursor: found.nextCursor } }),
  );
}

/**
 * The success envelope of `{[KEY]: posts, pageInfo}` (after the fields of BEFORE, when given) as
 * JSON text, the posts written by postJson (see pageJson).
 */
export function postListJson(
  set: SetHeaders,
  page: { items: Parameters<typeof postJson>[0][]; nextCursor: string | null },
  key = "posts",
  before?: Record<string, unknown>,
): string {
  let posts = "";
  for (const v of page.items) posts += (posts ? "," : "") + postJson(v);
  return pageJson(set, key, posts, page.nextCursor, before);
}

/**
 * The success envelope of `{[KEY]: [ITEMS], pageInfo: {nextCursor}}` (after the fields of
 * BEFORE, when given) as JSON text; SET gets the JSON content type, so Elysia sends the text as
 * it is. The same bytes as returning ok({…}) of the items' shapes, with less CPU per page.
 */
export function pageJson(
  set: SetHeaders,
  key: string,
  items: string,
  nextCursor: string | null,
  before?: Record<string, unknown>,
): string {
  const [head, tail] = pageJsonAround(key, nextCursor, before);
  return jsonText(set, head + items + tail);
}

/** The text of pageJson's answer before and after its items. */
export function pageJsonAround(
  key: string,
  nextCursor: string | null,
  before?: Record<string, unknown>,
): [head: string, tail: string] {
  const fields = before ? JSON.stringify(before).slice(1, -1) + "," : "";
  return [
    `{"success":true,"data":{${fields}${JSON.stringify(key)}:[`,
    `],"pageInfo":{"nextCursor":${JSON.stringify(nextCursor)}}}}`,
  ];
}
