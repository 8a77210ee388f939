import { defineService, type App } from "../../app";
import {
  commentsPage,
  findCommentThread,
  findPostThread,
  cachedCommentViewsOf,
  likedAmong,
  type CommentIdRange,
  type CommentPlace,
  type CommentThread,
  type PostThread,
  type CommentView,
  type ThreadState,
} from "../../domain/comments/service";
import type { PageRequest } from "../../domain/posts/feed";
import { VersionedCache } from "../../cache/by-version";
import { pageRequest } from "../input";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { pageJson, pageJsonAround } from "./pages";
import { commentJson } from "./serialize";
import { flat } from "../../lib/flat-string";
import { MAX_KEPT_TEXT } from "../../cache/stamped-answers";

/**
 * A page of a thread's comments as its answer's JSON text, as every reader who hides nobody
 * reads it, their own likes apart. Never changed once made.
 */
interface CachedCommentPage {
  /** the page's comments, in order */
  ids: number[];
  /** the lowest and highest of IDS: one probe tells whether a reader liked any of them */
  range: CommentIdRange;
  /** the whole answer for a reader who liked none of them */
  plain: string;
  /** PLAIN cut around each comment's `liked` value: pieces[0] + liked(ids[0]) + pieces[1] + … */
  pieces: string[];
}

/** Most comment pages kept per App: the oldest kept goes first (a page holds its pieces too: about twice its text). */
const MAX_CACHED_PAGES = 500;
/** No ids (lo > hi): the probe of a reader's likes finds nothing. */
const NO_RANGE: CommentIdRange = { lo: 1, hi: 0 };

/**
 * The App's kept comment pages, by thread and page (post or comment cuid, limit, cursor) and
 * the version of the thread (comment_threads.version, with the post's or comment's id), which
 * triggers raise on every change of what the page shows (comments added, changed, liked or
 * removed, their authors' profiles changed or deleted), whoever makes it: a page whose version
 * a read does not name is not used, and nothing has to be told of changes.
 */
const pagesCacheService = defineService(
  "comments:kept-pages",
  () => new VersionedCache<CachedCommentPage, string, string>(MAX_CACHED_PAGES),
);

type PageQueryValues = { cursor?: string; limit?: string };

/**
 * `{comments, pageInfo}` of a visible post's top-level comments as JSON text: one statement when
 * its page is kept, answered without a promise when that statement runs straight on SQLite and
 * the reader liked none of the page's comments.
 */
export function postCommentsResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  postCuid: string,
  query: PageQueryValues,
): string | Promise<string> {
  const page = pageRequest(query);
  const key = `p:${postCuid}:${page.limit}:${query.cursor ?? ""}`;
  const kept = app.services.get(pagesCacheService).peek(key);
  const found = findPostThread(app.db, viewerId, postCuid, kept?.value.range ?? NO_RANGE);
  const answerFor = ({ post, thread }: PostThread) =>
    answer(app, set, viewerId, { post, replyTo: null }, thread, page, key, post.id);
  return found instanceof Promise ? found.then(answerFor) : answerFor(found);
}

/** `{comments, pageInfo}` of a visible comment's replies as JSON text (as postCommentsResponse). */
export function repliesResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  commentCuid: string,
  query: PageQueryValues,
): string | Promise<string> {
  const page = pageRequest(query);
  const key = `c:${commentCuid}:${page.limit}:${query.cursor ?? ""}`;
  const kept = app.services.get(pagesCacheService).peek(key);
  const found = findCommentThread(app.db, viewerId, commentCuid, kept?.value.range ?? NO_RANGE);
  const answerFor = ({ comment, post, thread }: CommentThread) =>
    answer(app, set, viewerId, { post, replyTo: comment }, thread, page, key, comment.id);
  return found instanceof Promise ? found.then(answerFor) : answerFor(found);
}

/**
 * The page KEY of the thread at PLACE (whose parent, post or comment, is PARENTID) for the
 * viewer: the kept text when THREAD names its version and the viewer hides nobody (their likes
 * spliced in: one more statement only when they liked a comment in the page's range of ids),
 * else read as before, and kept when the viewer hides nobody.
 */
function answer(
  app: App,
  set: SetHeaders,
  viewerId: number,
  place: CommentPlace,
  thread: ThreadState,
  page: PageRequest,
  key: string,
  parentId: number,
): string | Promise<string> {
  const pages = app.services.get(pagesCacheService);
  const version = `${parentId}:${thread.version}`;
  const kept = thread.hidesNobody ? pages.get(key, version) : undefined;
  if (kept) {
    if (!thread.likedInRange) return jsonText(set, kept.plain);
    return likedAmong(app.db, viewerId, kept.ids).then((liked) => {
      if (liked.size === 0) return jsonText(set, kept.plain);
      let text = kept.pieces[0]!;
      for (let i = 0; i < kept.ids.length; i++) text += liked.has(kept.ids[i]!) + kept.pieces[i + 1]!;
      return jsonText(set, text);
    });
  }
  return readAndKeep(app, set, viewerId, place, thread, page, key, version);
}

/** The page read as before (see answer), kept under VERSION when the viewer hides nobody. */
async function readAndKeep(
  app: App,
  set: SetHeaders,
  viewerId: number,
  place: CommentPlace,
  thread: ThreadState,
  page: PageRequest,
  key: string,
  version: string,
): Promise<string> {
  // read as a viewer who hides nobody when this one does, so the page is everyone's to keep
  // (the version was read first: a change made meanwhile raised it past the one kept under)
  const result = await commentsPage(app.db, cachedCommentViewsOf(app), viewerId, place, page, thread.hidesNobody);
  let comments = "";
  for (const v of result.items) comments += (comments ? "," : "") + commentJson(v);
  const text = pageJson(set, "comments", comments, result.nextCursor);
  if (thread.hidesNobody && text.length <= MAX_KEPT_TEXT)
    app.services.get(pagesCacheService).keep(key, version, cachedPageOf(result.items, result.nextCursor));
  return text;
}

const LIKED = ',"liked":false,';

/** The kept form of a page of VIEWS (see CachedCommentPage). */
function cachedPageOf(views: CommentView[], nextCursor: string | null): CachedCommentPage {
  const [head, tail] = pageJsonAround("comments", nextCursor);
  const pieces: string[] = [];
  let piece = head;
  for (const [i, v] of views.entries()) {
    const text = commentJson(v.liked ? { ...v, liked: false } : v);
    // the last one: a string's quotes inside a value are escaped, so only the key matches
    const at = text.lastIndexOf(LIKED) + LIKED.length - ",".length - "false".length;
    pieces.push(piece + (i ? "," : "") + text.slice(0, at));
    piece = text.slice(at + "false".length);
  }
  pieces.push(piece + tail);
  const ids = views.map((v) => v.row.id);
  return {
    ids,
    range: ids.length ? { lo: Math.min(...ids), hi: Math.max(...ids) } : NO_RANGE,
    plain: flat(pieces.join("false")),
    pieces: pieces.map(flat),
  };
}
