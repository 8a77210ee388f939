import { doc } from "../docs";
import { Page, Post } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { bookmarksPage, hashtagPostsPage } from "../../domain/posts/feed";
import { cachedPostViewsOf } from "../../domain/posts/view";
import { normalizeHashtag } from "../../domain/posts/text";
import { requestContext } from "../../http/context";
import { fieldError } from "../../lib/errors";
import { PageQuery, pageRequest } from "../input";
import { feedResponse } from "./feed-answers";
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

/** /api/social/bookmarks: the posts I bookmarked. */
export function bookmarkRoutes(app: App) {
  return new Elysia({ name: "client-bookmarks" })
    .use(requestContext(app))
    .get(
      "",
      async ({ query, user, set }) =>
        postListJson(set, await bookmarksPage(app.db, cachedPostViewsOf(app), user.id, pageRequest(query))),
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
    async ({ params, query, user, set }) => {
      const tag = normalizeHashtag(params.tag);
      if (!tag) throw fieldError("tag", "must not be empty");
      const page = await hashtagPostsPage(app.db, cachedPostViewsOf(app), user.id, tag, pageRequest(query));
      return postListJson(set, page, "posts", { hashtag: tag });
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
