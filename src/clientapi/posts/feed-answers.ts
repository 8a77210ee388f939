import { defineService, type App } from "../../app";
import { FEED_PAGE_SOURCES, feedPage, feedPageReadFrom } from "../../domain/posts/feed";
import { cachedPostViewsOf } from "../../domain/posts/view";
import { keyedCacheFor, cachedJson } from "../../cache/answers";
import { pageRequest, parseFlag } from "../input";
import type { SetHeaders } from "../../http/envelope";
import { postListJson } from "./pages";
import { flat } from "./serialize";

/** Most home feed answers kept per App, all readers together (a page of 20 ≈ 10 KB). */
const MAX_CACHED_ANSWERS = 1_000;
/** A longer answer (a page of up to 100 long posts) is not kept. */
const MAX_CACHED_TEXT = 32 * 1024;

/**
 * The App's home feed answers as JSON text, by reader, list (following or all posts), limit and
 * cursor, each dropped when a write names a row it was read from (FEED_PAGE_SOURCES); none on
 * PostgreSQL.
 */
const answersCacheService = defineService("feed:cached-answers", (app) =>
  keyedCacheFor<string>(app, "feed_pages", FEED_PAGE_SOURCES, MAX_CACHED_ANSWERS),
);

/** The App's kept home feed answers (null on PostgreSQL), for tests. */
export const cachedFeedAnswersOf = (app: App) => app.services.get(answersCacheService);

/**
 * `{feed, pageInfo}` of VIEWER's home feed as JSON text: the answer kept since no row it was read
 * from changed (no statement on the database), else read (see feedPage) and kept when it was
 * answered in the same synchronous step as the check (no write can have come between), as most
 * pages are; pages with a repost or a poll, read with a promise, are not kept.
 */
export function feedResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  query: { cursor?: string; limit?: string; following?: string },
): string | Promise<string> {
  const request = pageRequest(query);
  const following = parseFlag(query.following, "following");
  const answers = app.services.get(answersCacheService);
  const key = `${viewerId}:${following ? "f" : "a"}:${request.limit}:${query.cursor ?? ""}`;
  return cachedJson(answers, set, key, () => {
    const page = feedPage(app.db, cachedPostViewsOf(app), viewerId, { ...request, following });
    if (page instanceof Promise) return page.then((p) => postListJson(set, p, "feed"));
    const text = postListJson(set, page, "feed");
    if (text.length > MAX_CACHED_TEXT) return { text };
    return { text, cache: { text: flat(text), dependsOn: feedPageReadFrom(viewerId, following, page.items) } };
  });
}
