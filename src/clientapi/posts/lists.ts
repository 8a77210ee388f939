import { doc } from "../docs";
import { Page, Post } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import type { Db } from "../../db";
import { bookmarksPage, hashtagPostsPage, type PageRequest } from "../../domain/posts/feed";
import { cachedPostViewsOf, type CachedPostViews } from "../../domain/posts/view";
import { normalizeHashtag } from "../../domain/posts/text";
import { requestContext } from "../../http/context";
import { answerKey } from "../../cache/stamped-answers";
import { fieldError } from "../../lib/errors";
import { PageQuery, pageRequest } from "../input";
import { feedResponse, keptPostListAnswer } from "./feed-answers";
import { postListJson } from "./pages";

const FeedQuery = t.Object({ ...PageQuery.properties, following: t.Optional(t.String({ maxLength: 5 })) });

/** /api/social/feed: the home feed (?following=true: followed authors only). */
export function feedRoutes(app: App) {
  return new Elysia({ name: "client-feed" })
    .use(requestContext(app))
    .get("", ({ query, user, set }) => feedResponse(app, set, user.id, query), {
      auth: true,
      query: FeedQuery,
      detail: doc("The home feed, newest first (?following=true: followed authors only)", { data: Page("feed", Post) }),
    });
}

/** `{posts, pageInfo}` of VIEWER's bookmarks as JSON text, read afresh (KEPT: the post views kept). */
export async function readBookmarks(db: Db, kept: CachedPostViews, viewerId: number, page: PageRequest) {
  return postListJson({ headers: {} }, await bookmarksPage(db, kept, viewerId, page));
}

/** `{hashtag, posts, pageInfo}` of TAG's posts as VIEWER sees them, as JSON text, read afresh (KEPT: the post views kept). */
export async function readHashtagPosts(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  tag: string,
  page: PageRequest,
) {
  return postListJson({ headers: {} }, await hashtagPostsPage(db, kept, viewerId, tag, page), "posts", {
    hashtag: tag,
  });
}

/** /api/social/bookmarks: the posts I bookmarked. */
export function bookmarkRoutes(app: App) {
  return new Elysia({ name: "client-bookmarks" }).use(requestContext(app)).get(
    "",
    ({ query, user, set }) => {
      const page = pageRequest(query);
      const key = answerKey(user.id, "bookmarks", page.limit, query.cursor ?? "");
      return keptPostListAnswer(app, set, key, () => readBookmarks(app.db, cachedPostViewsOf(app), user.id, page));
    },
    {
      auth: true,
      query: PageQuery,
      detail: doc("The posts I bookmarked", { data: Page("posts", Post) }),
    },
  );
}

/** /api/social/hashtags/{tag}/posts: posts with a hashtag. */
export function hashtagRoutes(app: App) {
  return new Elysia({ name: "client-hashtags" }).use(requestContext(app)).get(
    "/:tag/posts",
    ({ params, query, user, set }) => {
      const tag = normalizeHashtag(params.tag);
      if (!tag) throw fieldError("tag", "must not be empty");
      const page = pageRequest(query);
      const key = answerKey(user.id, "hashtag", tag, page.limit, query.cursor ?? "");
      return keptPostListAnswer(app, set, key, () =>
        readHashtagPosts(app.db, cachedPostViewsOf(app), user.id, tag, page),
      );
    },
    {
      auth: true,
      params: t.Object({ tag: t.String({ minLength: 1, maxLength: 200 }) }),
      query: PageQuery,
      detail: doc("Posts with a hashtag", {
        data: t.Composite([t.Object({ hashtag: t.String() }), Page("posts", Post)]),
      }),
    },
  );
}
