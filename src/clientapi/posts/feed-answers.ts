import { defineService, type App } from "../../app";
import { feedPage } from "../../domain/posts/feed";
import { cachedPostViewsOf, type PostView } from "../../domain/posts/view";
import { answerKey, StampedAnswers } from "../../cache/stamped-answers";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { pageRequest, parseFlag } from "../input";
import { postListJson } from "./pages";

/**
 * The App's answers of the lists a post view shows in (the home feed, following or all posts;
 * bookmarks; a hashtag's posts) and of a post's likers, as JSON text, by reader, list, limit and
 * cursor, kept under the stamp `feed-pages` (src/cache/registry.ts).
 */
const answersService = defineService("feed:cached-answers", () => new StampedAnswers("feed-pages"));

/**
 * The answer KEY names (the reader first, then the list, limit and cursor) as JSON text, with
 * its content type on SET: the one kept under the stamp read now, else READ's, kept under it.
 */
export function keptPostListAnswer(
  app: App,
  set: SetHeaders,
  key: string,
  read: () => string | Promise<string>,
): string | Promise<string> {
  return jsonText(set, app.services.get(answersService).answer(app, key, read));
}

/** `{feed, pageInfo}` of VIEWER's home feed as JSON text (see feedPage), kept. */
export function feedResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  query: { cursor?: string; limit?: string; following?: string },
): string | Promise<string> {
  const request = { ...pageRequest(query), following: parseFlag(query.following, "following") };
  const key = answerKey(viewerId, request.following ? "following" : "all", request.limit, query.cursor ?? "");
  return keptPostListAnswer(app, set, key, () => {
    const page = feedPage(app.db, cachedPostViewsOf(app), viewerId, request);
    const json = (p: { items: PostView[]; nextCursor: string | null }) => postListJson(set, p, "feed");
    return page instanceof Promise ? page.then(json) : json(page);
  });
}
