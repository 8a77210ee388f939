import { t } from "elysia";
import { doc } from "../docs";
import { Comment, Page, PublicUser } from "../schemas";
import { Elysia } from "elysia";
import type { App } from "../../app";
import {
  deleteComment,
  findVisibleComment,
  cachedCommentViewsOf,
  loadCommentViews,
  toggleCommentLike,
} from "../../domain/comments/service";
import { requestContext } from "../../http/context";
import { jsonText, ok } from "../../http/envelope";
import { PageQuery, pageRequest } from "../input";
import { IdParams, likersJson } from "./pages";
import { repliesResponse } from "./comment-pages";
import { serializeComment } from "./serialize";

/** /api/social/comments: one comment, its deletion, likes and replies (comments are written under /social/posts). */
export function commentRoutes(app: App) {
  return new Elysia({ name: "client-comments" })
    .use(requestContext(app))
    .get(
      "/:id",
      async ({ params, user }) => {
        const { comment } = await findVisibleComment(app.db, user.id, params.id);
        const [view] = await loadCommentViews(app.db, cachedCommentViewsOf(app), user.id, [comment]);
        return ok({ comment: serializeComment(view!) });
      },
      { auth: true, params: IdParams, detail: doc("A comment", { data: t.Object({ comment: Comment }) }) },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        await deleteComment(app, user, params.id);
        return ok({ deleted: true });
      },
      {
        auth: true,
        params: IdParams,
        detail: doc("Delete my comment (or one on my post)", {
          data: t.Object({ deleted: t.Literal(true) }),
          errors: ["FORBIDDEN"],
        }),
      },
    )
    .post("/:id/like", async ({ params, user }) => ok(await toggleCommentLike(app, user, params.id)), {
      auth: true,
      params: IdParams,
      detail: doc("Like or unlike a comment (a toggle)", {
        data: t.Object({ liked: t.Boolean(), likeCount: t.Integer() }),
      }),
    })
    .get(
      "/:id/likes",
      async ({ params, query, user, set }) => {
        const page = pageRequest(query);
        const { comment } = await findVisibleComment(app.db, user.id, params.id);
        return jsonText(set, await likersJson(app.db, user.id, { commentId: comment.id }, page));
      },
      {
        auth: true,
        params: IdParams,
        query: PageQuery,
        detail: doc("Who liked a comment", { data: Page("users", PublicUser) }),
      },
    )
    .get("/:id/replies", ({ params, query, user, set }) => repliesResponse(app, set, user.id, params.id, query), {
      auth: true,
      params: IdParams,
      query: PageQuery,
      detail: doc("Replies to a comment", { data: Page("comments", Comment) }),
    });
}
