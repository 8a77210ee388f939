import { t } from "elysia";
import type { App } from "../../app";
import { commentsPage, keptCommentViewsOf, type CommentPlace } from "../../domain/comments/service";
import { likersPage } from "../../domain/posts/feed";
import { ok } from "../../http/envelope";
import { pageRequest } from "../input";
import { serializePublicUser } from "../serializers/account";
import { serializeComment, serializePost } from "./serialize";

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

/** `{posts (or KEY), pageInfo}`: one page of a post list. */
export const postList = (
  page: { items: Parameters<typeof serializePost>[0][]; nextCursor: string | null },
  key = "posts",
) => ({
  [key]: page.items.map(serializePost),
  pageInfo: { nextCursor: page.nextCursor },
});
