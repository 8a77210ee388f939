import { defineService, type App } from "../../app";
import { feedPage, type PageRequest } from "../../domain/posts/feed";
import { cachedPostViewsOf, type PostView } from "../../domain/posts/view";
import { VersionedCache } from "../../cache/by-version";
import { cacheStampsOf } from "../../cache/stamps";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { pageRequest, parseFlag } from "../input";
import { postListJson } from "./pages";
import { flat } from "./serialize";

/** Most home feed answers kept per App, all readers together. */
const MAX_CACHED_ANSWERS = 1_000;
/** A longer answer (a page of up to 100 long posts) is not kept. */
const MAX_CACHED_TEXT = 32 * 1024;

/**
 * The App's home feed answers as JSON text, by reader, list (following or all posts), limit and
 * cursor, kept under the stamp `feed-pages` they were read at: triggers on every table a page
 * is read from raise it, whoever writes (src/cache/registry.ts), so an answer kept under an older
 * stamp is not used and no writer has to tell anyone.
 */
const answersCacheService = defineService(
  "feed:cached-answers",
  () => new VersionedCache<string, number, string>(MAX_CACHED_ANSWERS),
);

/**
 * `{feed, pageInfo}` of VIEWER's home feed as JSON text: the answer kept under the stamp read
 * now (no statement on SQLite, where the stamp is read at most once per turn of the event loop
 * while nothing is written), else read (see feedPage) and kept under that stamp (read before the
 * page: a write made meanwhile raises it past the kept one, which then misses).
 */
export function feedResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  query: { cursor?: string; limit?: string; following?: string },
): string | Promise<string> {
  const request = { ...pageRequest(query), following: parseFlag(query.following, "following") };
  const key = `${viewerId}:${request.following ? "f" : "a"}:${request.limit}:${query.cursor ?? ""}`;
  const stamps = cacheStampsOf(app);
  const stamp = stamps.peek("feed-pages");
  if (stamp === null)
    return stamps.read("feed-pages", app.db).then((read) => answer(app, set, viewerId, request, key, read));
  return answer(app, set, viewerId, request, key, stamp);
}

/** The answer kept under KEY at STAMP, else the page read and kept under it. */
function answer(
  app: App,
  set: SetHeaders,
  viewerId: number,
  request: PageRequest & { following: boolean },
  key: string,
  stamp: number,
): string | Promise<string> {
  const answers = app.services.get(answersCacheService);
  const kept = answers.get(key, stamp);
  if (kept !== undefined) return jsonText(set, kept);
  const keep = (page: { items: PostView[]; nextCursor: string | null }) => {
    const text = postListJson(set, page, "feed");
    // NaN: a database without the stamp keeps nothing
    if (text.length <= MAX_CACHED_TEXT && !Number.isNaN(stamp)) answers.keep(key, stamp, flat(text));
    return text;
  };
  const page = feedPage(app.db, cachedPostViewsOf(app), viewerId, request);
  return page instanceof Promise ? page.then(keep) : keep(page);
}
