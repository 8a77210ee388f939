import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { commentsPage, createComment, deleteComment, findVisibleComment, loadCommentViews, toggleCommentLike } from "../../domain/comments/service";
import { bookmarksPage, feedPage, findVisiblePostView, hashtagPostsPage, likersPage, userPostsPage } from "../../domain/posts/feed";
import { createPost, deletePost, editPost, findVisiblePost, toggleBookmark, toggleLike, toggleRepost, votePoll } from "../../domain/posts/service";
import { normalizeHashtag } from "../../domain/posts/text";
import { loadPostViews } from "../../domain/posts/view";
import { requireVisibleUser } from "../../domain/profiles/service";
import { blockedEitherWayIds } from "../../domain/relations/service";
import type { PostRow } from "../../domain/posts/table";
import type { UserRow } from "../../domain/users/table";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { fieldError } from "../../lib/errors";
import { PageQuery, pageRequest, parseFlag } from "./query";
import { serializePublicUser } from "../serializers/account";
import { serializeComment, serializePost } from "./serialize";

const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const FeedQuery = t.Object({
  cursor: t.Optional(t.String({ maxLength: 200 })),
  limit: t.Optional(t.String({ maxLength: 10 })),
  following: t.Optional(t.String({ maxLength: 5 })),
});
// lengths are counted in characters (code points) by the domain; the schema caps the size only
const PollBody = t.Object({
  question: t.Optional(t.String({ maxLength: 1200 })),
  options: t.Array(t.String({ maxLength: 400 }), { minItems: 2, maxItems: 12 }),
  multiple: t.Optional(t.Boolean()),
});
const CreatePostBody = t.Object({
  // characters are counted as code points in the domain; the schema only caps the size
  content: t.Optional(t.String({ maxLength: 8000 })),
  imageUrls: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: 10 })),
  poll: t.Optional(PollBody),
  clientPostId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
});
const EditPostBody = t.Object({
  content: t.Optional(t.String({ maxLength: 8000 })),
  imageUrls: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: 10 })),
});
const VoteBody = t.Object({
  optionIds: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 12 })),
  options: t.Optional(t.Array(t.Integer({ minimum: 0, maximum: 11 }), { maxItems: 12 })),
});
const CommentBody = t.Object({
  content: t.Optional(t.String({ maxLength: 8000 })),
  media: t.Optional(
    t.Array(t.Object({ url: t.String({ minLength: 1, maxLength: 2048 }), type: t.Optional(t.Union([t.Literal("image"), t.Literal("video"), t.Literal("voice")])) }), { maxItems: 4 }),
  ),
  replyToId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
});


/**
 * Posts and comments under /api/social: feed, posts CRUD, likes, reposts, bookmarks, polls,
 * comments and threads, a person's posts, posts with a hashtag.
 */
export function postRoutes(app: App) {
  const viewRow = async (viewer: UserRow, post: PostRow) => {
    const [view] = await loadPostViews(app.db, viewer.id, [post], new Set(await blockedEitherWayIds(app.db, viewer.id)));
    return serializePost(view!);
  };
  const likers = async (viewerId: number, target: { postId: number } | { commentId: number }, query: { cursor?: string; limit?: string }) => {
    const page = await likersPage(app.db, viewerId, target, pageRequest(query));
    return ok({ users: page.items.map(serializePublicUser), pageInfo: { nextCursor: page.nextCursor } });
  };
  const comments = async (viewerId: number, parent: { postId: number } | { commentId: number }, query: { cursor?: string; limit?: string }) => {
    const page = await commentsPage(app.db, viewerId, parent, pageRequest(query));
    return ok({ comments: page.items.map(serializeComment), pageInfo: { nextCursor: page.nextCursor } });
  };
  const postList = (page: { items: Parameters<typeof serializePost>[0][]; nextCursor: string | null }, key = "posts") => ({
    [key]: page.items.map(serializePost),
    pageInfo: { nextCursor: page.nextCursor },
  });

  return new Elysia({ name: "client-posts", prefix: "/social" })
    .use(requestContext(app))
    .get(
      "/feed",
      async ({ query, user }) => ok(postList(await feedPage(app.db, user.id, { ...pageRequest(query), following: parseFlag(query.following, "following") }), "feed")),
      { auth: true, query: FeedQuery },
    )
    .post(
      "/posts",
      async ({ body, user }) => {
        const { post } = await createPost(app, user, { ...body, content: body.content ?? "" });
        return ok({ post: await viewRow(user, post) });
      },
      { auth: true, body: CreatePostBody },
    )
    .get("/posts/:id", async ({ params, user }) => ok({ post: serializePost(await findVisiblePostView(app.db, user.id, params.id)) }), { auth: true, params: IdParams })
    .patch(
      "/posts/:id",
      async ({ params, body, user }) => {
        const post = await editPost(app, user, params.id, body);
        return ok({ post: await viewRow(user, post) });
      },
      { auth: true, params: IdParams, body: EditPostBody },
    )
    .delete(
      "/posts/:id",
      async ({ params, user }) => {
        await deletePost(app, user, params.id);
        return ok({ deleted: true });
      },
      { auth: true, params: IdParams },
    )
    .post("/posts/:id/like", async ({ params, user }) => ok(await toggleLike(app, user, params.id)), { auth: true, params: IdParams })
    .get(
      "/posts/:id/likes",
      async ({ params, query, user }) => {
        const post = await findVisiblePost(app.db, user.id, params.id);
        return likers(user.id, { postId: post.id }, query);
      },
      { auth: true, params: IdParams, query: PageQuery },
    )
    .post(
      "/posts/:id/repost",
      async ({ params, user }) => {
        const r = await toggleRepost(app, user, params.id);
        return ok({ reposted: r.reposted, repostCount: r.repostCount, repost: r.repost ? await viewRow(user, r.repost) : null });
      },
      { auth: true, params: IdParams },
    )
    .post("/posts/:id/bookmark", async ({ params, user }) => ok(await toggleBookmark(app, user, params.id)), { auth: true, params: IdParams })
    .post(
      "/posts/:id/poll/vote",
      async ({ params, body, user }) => {
        const post = await viewRow(user, await votePoll(app, user, params.id, body));
        return ok({ poll: post.poll, post });
      },
      { auth: true, params: IdParams, body: VoteBody },
    )
    .get(
      "/bookmarks",
      async ({ query, user }) => ok(postList(await bookmarksPage(app.db, user.id, pageRequest(query)))),
      { auth: true, query: PageQuery },
    )
    .get(
      "/users/:username/posts",
      async ({ params, query, user }) => {
        const author = await requireVisibleUser(app.db, user.id, params.username);
        return ok(postList(await userPostsPage(app.db, user.id, author, pageRequest(query))));
      },
      { auth: true, params: t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) }), query: PageQuery },
    )
    .get(
      "/hashtags/:tag/posts",
      async ({ params, query, user }) => {
        const tag = normalizeHashtag(params.tag);
        if (!tag) throw fieldError("tag", "must not be empty");
        return ok({ hashtag: tag, ...postList(await hashtagPostsPage(app.db, user.id, tag, pageRequest(query))) });
      },
      { auth: true, params: t.Object({ tag: t.String({ minLength: 1, maxLength: 200 }) }), query: PageQuery },
    )
    .get(
      "/posts/:id/comments",
      async ({ params, query, user }) => {
        const post = await findVisiblePost(app.db, user.id, params.id);
        return comments(user.id, { postId: post.id }, query);
      },
      { auth: true, params: IdParams, query: PageQuery },
    )
    .post(
      "/posts/:id/comments",
      async ({ params, body, user }) => {
        const row = await createComment(app, user, params.id, body);
        const [view] = await loadCommentViews(app.db, user.id, [row]);
        return ok({ comment: serializeComment(view!) });
      },
      { auth: true, params: IdParams, body: CommentBody },
    )
    .get(
      "/comments/:id",
      async ({ params, user }) => {
        const { comment } = await findVisibleComment(app.db, user.id, params.id);
        const [view] = await loadCommentViews(app.db, user.id, [comment]);
        return ok({ comment: serializeComment(view!) });
      },
      { auth: true, params: IdParams },
    )
    .delete(
      "/comments/:id",
      async ({ params, user }) => {
        await deleteComment(app, user, params.id);
        return ok({ deleted: true });
      },
      { auth: true, params: IdParams },
    )
    .post("/comments/:id/like", async ({ params, user }) => ok(await toggleCommentLike(app, user, params.id)), { auth: true, params: IdParams })
    .get(
      "/comments/:id/likes",
      async ({ params, query, user }) => {
        const { comment } = await findVisibleComment(app.db, user.id, params.id);
        return likers(user.id, { commentId: comment.id }, query);
      },
      { auth: true, params: IdParams, query: PageQuery },
    )
    .get(
      "/comments/:id/replies",
      async ({ params, query, user }) => {
        const { comment } = await findVisibleComment(app.db, user.id, params.id);
        return comments(user.id, { commentId: comment.id }, query);
      },
      { auth: true, params: IdParams, query: PageQuery },
    );
}
