import type { Db } from "../db";
import { VersionedCache } from "../cache/by-version";
import { feedPage } from "../domain/posts/feed";
import { findVisiblePost } from "../domain/posts/service";
import type { CachedPostViews } from "../domain/posts/view";
import { commentsPage, findVisibleComment, type CachedCommentViews } from "../domain/comments/service";
import { loadProfileByUsername, type ProfileUser } from "../domain/profiles/service";
import { decodeCursor } from "../lib/paging";
import { ok } from "../http/envelope";
import { pageRequest } from "../clientapi/input";
import { postListJson } from "../clientapi/posts/pages";
import { serializeComment } from "../clientapi/posts/serialize";
import { serializeProfile } from "../clientapi/people/serialize";
import { readFollowPage, type FollowDirection } from "../clientapi/people/follow-answers";
import { readBookmarks, readHashtagPosts } from "../clientapi/posts/lists";
import { readPostLikers } from "../clientapi/posts/routes";
import { readNotificationsPage } from "../clientapi/notifications/page-answers";
import { readHistory } from "../clientapi/chats/history-answers";
import type { App } from "../app";
import { notificationCounts } from "../domain/notifications/service";
import { readChatList } from "../domain/chats/chat-list";
import { ChatListCache, chatListJson } from "../clientapi/chats/serialize";

/*
 * The Client API's cached answers as they are read afresh from the database, nothing kept: what
 * a test compares the served answers with, byte for byte, after each kind of write.
 */

/** A status and, for a 200, the answer's text. */
export type Answer = [status: number, text: string];

/** The status of an error a fresh read throws (an AppError's, else 500). */
async function orStatus(read: () => Promise<string>): Promise<Answer> {
  try {
    return [200, await read()];
  } catch (err) {
    return [(err as { status?: number }).status ?? 500, ""];
  }
}

/** Post views with nothing kept. */
export const nothingKeptOfPosts = (): CachedPostViews => ({
  posts: new VersionedCache(1),
  authors: new VersionedCache(1),
});

/** Comment views with nothing kept. */
const nothingKeptOfComments = (): CachedCommentViews => ({
  comments: new VersionedCache(1),
  authors: new VersionedCache(1),
});

/** A page of the home feed: following or all posts, LIMIT, and the cursor of the page before (or none). */
export interface FeedRequest {
  following: boolean;
  limit: number;
  cursor?: string;
}

/** The query of a FeedRequest, as /api/social/feed takes it. */
export const feedQuery = (r: FeedRequest) =>
  `following=${r.following}&limit=${r.limit}${r.cursor ? `&cursor=${encodeURIComponent(r.cursor)}` : ""}`;

/** VIEWER's page R of the home feed made afresh, and its next cursor. */
export async function freshFeed(
  db: Db,
  viewerId: number,
  r: FeedRequest,
): Promise<{ text: string; nextCursor: string | null }> {
  const page = await feedPage(db, nothingKeptOfPosts(), viewerId, {
    ...pageRequest({ cursor: r.cursor, limit: String(r.limit) }),
    following: r.following,
  });
  return { text: postListJson({ headers: {} }, page, "feed"), nextCursor: page.nextCursor };
}

/** USERNAME's profile as VIEWER sees it, read afresh: the answer, or a 404. */
export const freshProfile = (db: Db, viewerId: number, username: string): Promise<Answer> =>
  orStatus(async () => {
    const view = await loadProfileByUsername(db, new VersionedCache<Readonly<ProfileUser>>(1), viewerId, username);
    return JSON.stringify(ok({ profile: serializeProfile(view) }));
  });

/** The newest page of the chat CID's history (with the chat) as VIEWER sees it, read afresh: the answer, or a 404. */
export const freshHistory = (app: App, viewerId: number, cid: string): Promise<Answer> =>
  orStatus(async () => {
    const viewer = await app.db.selectFrom("users").selectAll().where("id", "=", viewerId).executeTakeFirstOrThrow();
    return readHistory(app, viewer, cid, {});
  });

/** The first page of RECIPIENT's notifications, read afresh. */
export const freshNotifications = (db: Db, recipientId: number): Promise<Answer> =>
  orStatus(async () =>
    readNotificationsPage(
      db,
      recipientId,
      { cursor: null, limit: pageRequest({}).limit, unreadOnly: false },
      await notificationCounts(db, recipientId),
    ),
  );

/** The first page of VIEWER's bookmarks, read afresh. */
export const freshBookmarks = (db: Db, viewerId: number): Promise<Answer> =>
  orStatus(() => readBookmarks(db, nothingKeptOfPosts(), viewerId, pageRequest({})));

/** The first page of TAG's posts as VIEWER sees them, read afresh. */
export const freshHashtagPosts = (db: Db, viewerId: number, tag: string): Promise<Answer> =>
  orStatus(() => readHashtagPosts(db, nothingKeptOfPosts(), viewerId, tag, pageRequest({})));

/** The first page of who liked the post CUID as VIEWER sees it, read afresh: the answer, or a 404. */
export const freshPostLikers = (db: Db, viewerId: number, cuid: string): Promise<Answer> =>
  orStatus(() => readPostLikers(db, viewerId, cuid, pageRequest({})));

/** The first page of USERNAME's followers or following as VIEWER sees it, read afresh: the answer, or a 404. */
export const freshFollowPage = (
  db: Db,
  viewerId: number,
  username: string,
  direction: FollowDirection,
): Promise<Answer> => orStatus(() => readFollowPage(db, viewerId, username, direction, pageRequest({})));

/**
 * A page of the comments on POSTID (or of the replies to REPLYTO) as VIEWER sees it, read afresh
 * by the domain and serialized as the route does: the answer, or the status of its error.
 */
export const freshComments = (
  db: Db,
  viewerId: number,
  postId: string,
  replyTo: string | null,
  limit = 20,
  cursor: string | null = null,
): Promise<Answer> =>
  orStatus(async () => {
    // a comment's replies are found by the comment alone, as the route finds them
    const place = replyTo
      ? await findVisibleComment(db, viewerId, replyTo).then(({ comment, post }) => ({ post, replyTo: comment }))
      : { post: await findVisiblePost(db, viewerId, postId), replyTo: null };
    const page = await commentsPage(db, nothingKeptOfComments(), viewerId, place, {
      cursor: cursor ? decodeCursor(cursor) : null,
      limit,
    });
    return JSON.stringify(
      ok({ comments: page.items.map(serializeComment), pageInfo: { nextCursor: page.nextCursor } }),
    );
  });

/** VIEWER's chat list page (LIMIT, after CURSOR) read afresh from the rows as the route answers it, byte for byte. */
export async function freshChatList(
  db: Db,
  viewerId: number,
  limit: number | undefined,
  cursor?: string | null,
): Promise<string> {
  const page = await readChatList(db, viewerId, cursor ?? undefined, limit ?? 20);
  const conversations = JSON.parse(await chatListJson(db, new ChatListCache(), viewerId, page));
  const next = page.nextCursor;
  return JSON.stringify(ok({ conversations, pageInfo: { nextCursor: next }, nextCursor: next }));
}
