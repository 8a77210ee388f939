import { doc } from "../docs";
import { Comment, Page, Post, PublicUser } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { createComment, cachedCommentViewsOf, loadCommentViews } from "../../domain/comments/service";
import { findVisiblePostView, type PageRequest } from "../../domain/posts/feed";
import type { Db } from "../../db";
import {
  createPost,
  deletePost,
  editPost,
  findVisiblePost,
  toggleBookmark,
  toggleLike,
  toggleRepost,
  votePoll,
} from "../../domain/posts/service";
import { cachedPostViewsOf, loadPostViews } from "../../domain/posts/view";
import { blockedEitherWayIds } from "../../domain/relations/service";
import type { PostRow } from "../../domain/posts/table";
import type { UserRow } from "../../domain/users/table";
import { requestContext } from "../../http/context";
import { answerKey } from "../../cache/stamped-answers";
import { ok } from "../../http/envelope";
import { PageQuery, pageRequest } from "../input";
import { IdParams, likersJson } from "./pages";
import { keptPostListAnswer } from "./feed-answers";
import { postCommentsResponse } from "./comment-pages";
import { serializeComment, serializePost } from "./serialize";

// lengths are counted in characters (code points) by the domain; the schema caps the size only
const PollBody = t.Object({
  question: t.Optional(t.String({ maxLength: 1200 })),
  options: t.Array(t.String({ maxLength: 400 }), { minItems: 2, maxItems: 12 }),
  multiple: t.Optional(t.Boolean()),
});
const ContentWarning = t.Optional(
  t.Union([t.String({ maxLength: 800 }), t.Null()], {
    description:
      "a content warning (up to 200 characters): readers see it instead of the text and images until they ask; empty or null for none",
  }),
);
const ImageAlts = t.Optional(
  t.Array(t.Union([t.String({ maxLength: 6000 }), t.Null()]), {
    maxItems: 10,
    description:
      "the images' descriptions (alt text, up to 1,500 characters each), by the index of imageUrls; empty or null for an image without one. In an edit without imageUrls, it describes the images the post has",
  }),
);
const LinkPreviewChoice = t.Optional(
  t.Boolean({
    description:
      "false: no preview of the text's first link (the author removed it); by default the server reads the page and the post's linkPreview fills in. In an edit, true brings a removed preview back; left out, an edit keeps the choice while the link stays the same",
  }),
);
const CreatePostBody = t.Object({
  // characters are counted as code points in the domain; the schema only caps the size
  content: t.Optional(t.String({ maxLength: 8000 })),
  contentWarning: ContentWarning,
  imageUrls: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: 10 })),
  imageAlts: ImageAlts,
  poll: t.Optional(PollBody),
  clientPostId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  linkPreview: LinkPreviewChoice,
});
const EditPostBody = t.Object({
  content: t.Optional(t.String({ maxLength: 8000 })),
  contentWarning: ContentWarning,
  imageUrls: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: 10 })),
  imageAlts: ImageAlts,
  linkPreview: LinkPreviewChoice,
});
const VoteBody = t.Object({
  optionIds: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 12 })),
  options: t.Optional(t.Array(t.Integer({ minimum: 0, maximum: 11 }), { maxItems: 12 })),
});
const CommentBody = t.Object({
  content: t.Optional(t.String({ maxLength: 8000 })),
  media: t.Optional(
    t.Array(
      t.Object({
        url: t.String({ minLength: 1, maxLength: 2048 }),
        type: t.Optional(t.Union([t.Literal("image"), t.Literal("video"), t.Literal("voice")])),
        alt: t.Optional(
          t.Union([t.String({ maxLength: 6000 }), t.Null()], {
            description: "the image's description (alt text), up to 1,500 characters",
          }),
        ),
      }),
      { maxItems: 4 },
    ),
  ),
  replyToId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  contentWarning: ContentWarning,
});

/** /api/social/posts: create, read, edit, delete; likes, reposts, bookmarks, poll votes; a post's comments. */
/** `{users, pageInfo}` of who liked the post CUID, as JSON text, read afresh: NOT_FOUND where VIEWER may not see the post. */
export async function readPostLikers(db: Db, viewerId: number, cuid: string, page: PageRequest): Promise<string> {
  const post = await findVisiblePost(db, viewerId, cuid);
  return likersJson(db, viewerId, { postId: post.id }, page);
}

export function postRoutes(app: App) {
  const viewRow = async (viewer: UserRow, post: PostRow) => {
    const [view] = await loadPostViews(
      app.db,
      cachedPostViewsOf(app),
      viewer.id,
      [post],
      new Set(await blockedEitherWayIds(app.db, viewer.id)),
    );
    return serializePost(view!);
  };

  return new Elysia({ name: "client-posts" })
    .use(requestContext(app))
    .post(
      "",
      async ({ body, user }) => {
        const { post } = await createPost(app, user, { ...body, content: body.content ?? "" });
        return ok({ post: await viewRow(user, post) });
      },
      {
        auth: true,
        body: CreatePostBody,
        detail: doc("Publish a post (text up to 2000 characters, images from /api/account/upload, a poll)", {
          data: t.Object({ post: Post }),
          errors: ["POSTING_TEMPORARILY_BLOCKED", "CONTENT_REJECTED"],
        }),
      },
    )
    .get(
      "/:id",
      async ({ params, user }) =>
        ok({ post: serializePost(await findVisiblePostView(app.db, cachedPostViewsOf(app), user.id, params.id)) }),
      { auth: true, params: IdParams, detail: doc("A post", { data: t.Object({ post: Post }) }) },
    )
    .patch(
      "/:id",
      async ({ params, body, user }) => {
        const post = await editPost(app, user, params.id, body);
        return ok({ post: await viewRow(user, post) });
      },
      {
        auth: true,
        params: IdParams,
        body: EditPostBody,
        detail: doc("Edit my post", { data: t.Object({ post: Post }), errors: ["FORBIDDEN", "CONTENT_REJECTED"] }),
      },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        await deletePost(app, user, params.id);
        return ok({ deleted: true });
      },
      {
        auth: true,
        params: IdParams,
        detail: doc("Delete my post", { data: t.Object({ deleted: t.Literal(true) }), errors: ["FORBIDDEN"] }),
      },
    )
    .post("/:id/like", async ({ params, user }) => ok(await toggleLike(app, user, params.id)), {
      auth: true,
      params: IdParams,
      detail: doc("Like or unlike a post (a toggle)", {
        data: t.Object({ liked: t.Boolean(), likeCount: t.Integer() }),
      }),
    })
    .get(
      "/:id/likes",
      ({ params, query, user, set }) => {
        const page = pageRequest(query);
        const key = answerKey(user.id, "likers", params.id, page.limit, query.cursor ?? "");
        return keptPostListAnswer(app, set, key, () => readPostLikers(app.db, user.id, params.id, page));
      },
      {
        auth: true,
        params: IdParams,
        query: PageQuery,
        detail: doc("Who liked a post", { data: Page("users", PublicUser) }),
      },
    )
    .post(
      "/:id/repost",
      async ({ params, user }) => {
        const r = await toggleRepost(app, user, params.id);
        return ok({
          reposted: r.reposted,
          repostCount: r.repostCount,
          repost: r.repost ? await viewRow(user, r.repost) : null,
        });
      },
      {
        auth: true,
        params: IdParams,
        detail: doc("Repost or undo my repost (a toggle)", {
          data: t.Object({ reposted: t.Boolean(), repostCount: t.Integer(), repost: t.Union([Post, t.Null()]) }),
          errors: ["POSTING_TEMPORARILY_BLOCKED"],
        }),
      },
    )
    .post("/:id/bookmark", async ({ params, user }) => ok(await toggleBookmark(app, user, params.id)), {
      auth: true,
      params: IdParams,
      detail: doc("Bookmark or unbookmark a post (a toggle)", { data: t.Object({ bookmarked: t.Boolean() }) }),
    })
    .post(
      "/:id/poll/vote",
      async ({ params, body, user }) => {
        const post = await viewRow(user, await votePoll(app, user, params.id, body));
        return ok({ poll: post.poll, post });
      },
      {
        auth: true,
        params: IdParams,
        body: VoteBody,
        detail: doc("Vote in a post's poll (option ids or indexes)", {
          data: t.Object({ poll: t.Unknown(), post: Post }),
          errors: ["ALREADY_VOTED"],
        }),
      },
    )
    .get("/:id/comments", ({ params, query, user, set }) => postCommentsResponse(app, set, user.id, params.id, query), {
      auth: true,
      params: IdParams,
      query: PageQuery,
      detail: doc("A post's comments", { data: Page("comments", Comment) }),
    })
    .post(
      "/:id/comments",
      async ({ params, body, user }) => {
        const row = await createComment(app, user, params.id, body);
        const [view] = await loadCommentViews(app.db, cachedCommentViewsOf(app), user.id, [row]);
        return ok({ comment: serializeComment(view!) });
      },
      {
        auth: true,
        params: IdParams,
        body: CommentBody,
        detail: doc("Comment on a post, or reply to a comment (replyToId)", {
          data: t.Object({ comment: Comment }),
          errors: ["FORBIDDEN", "POSTING_TEMPORARILY_BLOCKED", "CONTENT_REJECTED"],
        }),
      },
    );
}
