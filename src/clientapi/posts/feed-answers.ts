import { defineService, type App } from "../../app";
import { feedPage } from "../../domain/posts/feed";
import { cachedPostViewsOf, type PostView } from "../../domain/posts/view";
import { StampedAnswers } from "../../cache/stamped-answers";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { pageRequest, parseFlag } from "../input";
import { postListJson } from "./pages";

/**
 * The App's home feed answers as JSON text, by reader, list (following or all posts), limit and
 * cursor, kept under the stamp `feed-pages` (src/cache/registry.ts): at most 1,000, each of at
 * most 32 KB (a page of up to 100 long posts is not kept).
 */
const answersService = defineService("feed:cached-answers", () => new StampedAnswers("feed-pages", 1_000, 32 * 1024));

/**
 * `{feed, pageInfo}` of VIEWER's home feed as JSON text: the answer kept under the stamp read
 * now, else read (see feedPage) and kept under that stamp.
 */
export function feedResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  query: { cursor?: string; limit?: string; following?: string },
): string | Promise<string> {
  const request = { ...pageRequest(query), following: parseFlag(query.following, "following") };
  const key = `${viewerId}:${request.following ? "f" : "a"}:${request.limit}:${query.cursor ?? ""}`;
  const text = app.services.get(answersService).answer(app, key, () => {
    const page = feedPage(app.db, cachedPostViewsOf(app), viewerId, request);
    const json = (p: { items: PostView[]; nextCursor: string | null }) => postListJson(set, p, "feed");
    return page instanceof Promise ? page.then(json) : json(page);
  });
  return text instanceof Promise ? text.then((t) => jsonText(set, t)) : jsonText(set, text);
}
