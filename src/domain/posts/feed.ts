import type { Db } from "../../db";
import { pageOf, type Cursor } from "../../lib/paging";
import { blockedEitherWayIds, followedIds, hiddenAuthorIds } from "../relations/service";
import type { UserRow } from "../users/table";
import { beforeKey } from "./keyset";
import type { PostRow } from "./table";
import { loadPostViews, type PostView } from "./view";

export interface PageRequest {
  cursor: Cursor | null;
  limit: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Posts newest first, keyset-paged on (created_at, id): a page starts strictly after the
 * cursor, so posts inserted meanwhile never repeat or shift later pages. Authors in HIDDEN
 * and reposts of their posts are left out, and so are deleted or disabled accounts.
 */
function postsQuery(db: Db, hidden: number[], page: PageRequest) {
  let q = db
    .selectFrom("posts")
    .innerJoin("users", "users.id", "posts.author_id")
    .selectAll("posts")
    .where("users.deleted_at", "is", null)
    .where("users.disabled_at", "is", null);
  if (hidden.length) q = q.where("posts.author_id", "not in", hidden);
  // a repost shows only while its original's author is live and not hidden
  q = q.where((eb) => {
    let original = eb
      .selectFrom("posts as o")
      .innerJoin("users as ou", "ou.id", "o.author_id")
      .select("o.id")
      .whereRef("o.id", "=", "posts.repost_of_id")
      .where("ou.deleted_at", "is", null)
      .where("ou.disabled_at", "is", null);
    if (hidden.length) original = original.where("o.author_id", "not in", hidden);
    return eb.or([eb("posts.repost_of_id", "is", null), eb.exists(original)]);
  });
  const c = page.cursor;
  if (c) {
    q = q.where(beforeKey("posts.created_at", "posts.id", c));
  }
  return q.orderBy("posts.created_at", "desc").orderBy("posts.id", "desc").limit(page.limit + 1);
}

async function viewsPage(db: Db, viewerId: number, rows: PostRow[], hidden: number[], limit: number): Promise<Page<PostView>> {
  const { items, nextCursor } = pageOf(rows, limit, (r) => ({ t: r.created_at, id: r.id }));
  return { items: await loadPostViews(db, viewerId, items, new Set(hidden)), nextCursor };
}

/** The home feed: every post, or (following) only accounts the viewer follows plus the viewer's own. */
export async function feedPage(db: Db, viewerId: number, opts: PageRequest & { following: boolean }): Promise<Page<PostView>> {
  const hidden = await hiddenAuthorIds(db, viewerId);
  let q = postsQuery(db, hidden, opts);
  if (opts.following) q = q.where("posts.author_id", "in", [...(await followedIds(db, viewerId)), viewerId]);
  return viewsPage(db, viewerId, await q.execute(), hidden, opts.limit);
}

/** One account's posts and reposts (a profile's list); muted accounts stay visible here. */
export async function userPostsPage(db: Db, viewerId: number, author: UserRow, page: PageRequest): Promise<Page<PostView>> {
  const blocked = await blockedEitherWayIds(db, viewerId);
  const rows = await postsQuery(db, blocked, page).where("posts.author_id", "=", author.id).execute();
  return viewsPage(db, viewerId, rows, blocked, page.limit);
}

/** Posts with a hashtag, newest first. */
export async function hashtagPostsPage(db: Db, viewerId: number, tag: string, page: PageRequest): Promise<Page<PostView>> {
  const blocked = await blockedEitherWayIds(db, viewerId);
  const rows = await postsQuery(db, blocked, page)
    .where("posts.id", "in", (eb) =>
      eb.selectFrom("post_hashtags").innerJoin("hashtags", "hashtags.id", "post_hashtags.hashtag_id").select("post_hashtags.post_id").where("hashtags.tag", "=", tag),
    )
    .execute();
  return viewsPage(db, viewerId, rows, blocked, page.limit);
}

/** The viewer's bookmarks, most recently saved first (cursor on the bookmark's time). */
export async function bookmarksPage(db: Db, viewerId: number, page: PageRequest): Promise<Page<PostView>> {
  const blocked = await blockedEitherWayIds(db, viewerId);
  let q = db
    .selectFrom("post_bookmarks as b")
    .innerJoin("posts", "posts.id", "b.post_id")
    .innerJoin("users", "users.id", "posts.author_id")
    .selectAll("posts")
    .select(["b.id as bookmark_id", "b.created_at as bookmarked_at"])
    .where("b.user_id", "=", viewerId)
    .where("users.deleted_at", "is", null);
  if (blocked.length) q = q.where("posts.author_id", "not in", blocked);
  const c = page.cursor;
  if (c) q = q.where(beforeKey("b.created_at", "b.id", c));
  const rows = await q.orderBy("b.created_at", "desc").orderBy("b.id", "desc").limit(page.limit + 1).execute();
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.bookmarked_at, id: r.bookmark_id }));
  const posts: PostRow[] = items.map(({ bookmark_id: _b, bookmarked_at: _t, ...post }) => post);
  return { items: await loadPostViews(db, viewerId, posts, new Set(blocked)), nextCursor };
}

/**
 * Accounts that liked a post, most recent first; accounts blocked either way with the
 * viewer are left out. KIND selects post or comment likes.
 */
export async function likersPage(db: Db, viewerId: number, target: { postId: number } | { commentId: number }, page: PageRequest): Promise<Page<UserRow & { liked_at: number }>> {
  const blocked = await blockedEitherWayIds(db, viewerId);
  const base = "postId" in target
    ? db.selectFrom("post_likes as l").where("l.post_id", "=", target.postId)
    : db.selectFrom("comment_likes as l").where("l.comment_id", "=", target.commentId);
  let q = base
    .innerJoin("users", "users.id", "l.user_id")
    .selectAll("users")
    .select(["l.id as like_id", "l.created_at as liked_at"])
    .where("users.deleted_at", "is", null);
  if (blocked.length) q = q.where("users.id", "not in", blocked);
  const c = page.cursor;
  if (c) q = q.where(beforeKey("l.created_at", "l.id", c));
  const rows = await q.orderBy("l.created_at", "desc").orderBy("l.id", "desc").limit(page.limit + 1).execute();
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.liked_at, id: r.like_id }));
  return { items: items.map(({ like_id: _l, ...u }) => u), nextCursor };
}
