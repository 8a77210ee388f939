import { t } from "elysia";
import type { App } from "../../app";
import { commentsPage, keptCommentViewsOf, type CommentPlace } from "../../domain/comments/service";
import { likersPage } from "../../domain/posts/feed";
import { ok } from "../../http/envelope";
import { pageRequest } from "../input";
import { serializePublicUser } from "../serializers/account";
import { postJson, serializeComment } from "./serialize";

/* Paged answers the posts, comments and people routes share. */

export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** `{users, pageInfo}`: who liked a post or a comment. */
export async function likersResponse(
  app: App,
  viewerId: number,
  target: { postId: number } | { commentId: number },
  query: { cursor?: string; limit?: string },
) {
  const page = await likersPage(app.db, viewerId, target, pageRequest(query));
  return ok({ users: page.items.map(serializePublicUser), pageInfo: { nextCursor: page.nextCursor } });
}

/** `{comments, pageInfo}`: a post's comments or a comment's replies. */
export async function commentsResponse(
  app: App,
  viewerId: number,
  place: CommentPlace,
  query: { cursor?: string; limit?: string },
) {
  const page = await commentsPage(app.db, keptCommentViewsOf(app), viewerId, place, pageRequest(query));
  return ok({ comments: page.items.map(serializeComment), pageInfo: { nextCursor: page.nextCursor } });
}

/**
 * The success envelope of `{[KEY]: posts, pageInfo}` (after the fields of BEFORE, when given) as
 * JSON text, the posts written by postJson; SET gets the JSON content type, so Elysia sends the
 * text as it is. The same bytes as returning ok(postList(…)), with less CPU per page.
 */
export function postListJson(
  set: { headers: Record<string, unknown> },
  page: { items: Parameters<typeof postJson>[0][]; nextCursor: string | null },
  key = "posts",
  before?: Record<string, unknown>,
): string {
  set.headers["content-type"] = "application/json;charset=utf-8";
  let posts = "";
  for (const v of page.items) posts += (posts ? "," : "") + postJson(v);
  const fields = before ? JSON.stringify(before).slice(1, -1) + "," : "";
  return `{"success":true,"data":{${fields}${JSON.stringify(key)}:[${posts}],"pageInfo":{"nextCursor":${JSON.stringify(page.nextCursor)}}}}`;
}
