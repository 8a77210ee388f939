import { sql, type ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { notFound } from "../../lib/errors";
import { pageOf, type Cursor } from "../../lib/paging";
import { blockedEitherWayIds, notHiddenFrom } from "../relations/service";
import type { UserRow } from "../users/table";
import { ShapedQuery } from "../../db/compiled";
import { beforeKey, literalLimit } from "./keyset";
import {
  buildPostViews,
  cachedPostViewsNow,
  POST_REF_COLUMNS,
  selectPostRefs,
  type CachedPostViews,
  type PostRef,
  type PostView,
} from "./view";

export interface PageRequest {
  cursor: Cursor | null;
  limit: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Whose posts a list leaves out: accounts blocked either way, and (home feed) those the viewer muted. */
type Hide = "blocked" | "blockedOrMuted";

/** Per-call values of a post list query. */
interface ListValues {
  viewer: number;
  /** the cursor (when the shape has one) */
  t: number;
  id: number;
  /** the author of a profile's list */
  author: number;
  /** the hashtag of a hashtag's list */
  tag: string;
  /** the post of a single-post lookup */
  cuid: string;
}

/** What decides a post list query's SQL. */
interface ListShape {
  /** "post" is the one post with a cuid, under the same visibility rules */
  list: "feed" | "following" | "user" | "media" | "hashtag" | "post";
  cursor: boolean;
  limit: number;
}

type PostAlias = "posts" | "p" | "t";

/** The account in column AUTHOR is not hidden from VIEWER. */
const notHidden = (eb: ExpressionBuilder<any, any>, author: string, viewer: number, hide: Hide) =>
  notHiddenFrom(eb, author, viewer, hide === "blockedOrMuted");

/**
 * The author of a walk's rows (users as `a`, joined by the walk: see followingPagePosts) is live and
 * not hidden from VIEWER.
 */
function authorVisible(eb: ExpressionBuilder<any, any>, author: string, viewer: number, hide: Hide) {
  return eb.and([eb("a.deleted_at", "is", null), eb("a.disabled_at", "is", null), notHidden(eb, author, viewer, hide)]);
}

/** The columns of a walk's author a page of refs needs (read once, by the walk: see selectPostRefs). */
const WALK_AUTHOR_COLUMNS = [
  "a.profile_version as a_version",
  "a.deleted_at as a_deleted_at",
  "a.disabled_at as a_disabled_at",
] as const;

/** A post on ALIAS is not a repost, or a repost whose original's author is live and not hidden. */
function repostVisible(eb: ExpressionBuilder<any, any>, alias: PostAlias, viewer: number, hide: Hide) {
  return eb.or([
    eb(sql.ref(`${alias}.repost_of_id`), "is", null),
    eb.exists(
      eb
        .selectFrom("posts as o")
        .innerJoin("users as ou", "ou.id", "o.author_id")
        .select("o.id")
        .where("o.id", "=", sql.ref(`${alias}.repost_of_id`))
        .where("ou.deleted_at", "is", null)
        .where("ou.disabled_at", "is", null)
        .where((e) => notHidden(e, "o.author_id", viewer, hide)),
    ),
  ]);
}

/**
 * The page's posts of the following feed: the newest visible rows of the viewer's
 * feed_entries (the viewer's own posts and those of followed, unmuted accounts, kept on write
 * by triggers: see the feed_entries migrations), a walk of its primary key from the cursor
 * that stops at LIMIT + 1 visible rows; only those are read from posts. A page costs the same
 * whatever the reader follows and however many posts exist (a search of the posts table would
 * walk every post for a reader following nobody).
 */
function followingPagePosts(db: Db, v: ListValues, shape: ListShape) {
  const hide: Hide = "blockedOrMuted";
  // the author joined as a LEFT JOIN, though every post has one: its conditions on `a` (IS NULL) keep
  // it one, so each walked row's author is looked up by primary key; as an inner join SQLite builds a
  // Bloom filter over every account on every page, most of the page's cost. The walk reads the
  // author's columns the page needs as it checks them.
  const walk = db
    .selectFrom("feed_entries as t")
    .leftJoin("users as a", "a.id", "t.author_id")
    .select(["t.post_id as id", ...WALK_AUTHOR_COLUMNS])
    .where("t.owner_id", "=", v.viewer)
    .$if(shape.cursor, (q) => q.where(beforeKey("t.created_at", "t.post_id", { t: v.t, id: v.id })))
    .where((eb) => eb.and([authorVisible(eb, "t.author_id", v.viewer, hide), repostVisible(eb, "t", v.viewer, hide)]))
    .orderBy("t.created_at", "desc")
    .orderBy("t.post_id", "desc")
    .limit(literalLimit(shape.limit + 1));
  return db
    .selectFrom(walk.as("n"))
    .innerJoin("posts", "posts.id", "n.id")
    .select([...POST_REF_COLUMNS, "n.a_version", "n.a_deleted_at", "n.a_disabled_at"]);
}

/**
 * Post refs newest first, keyset-paged on (created_at, id): a page starts strictly after the
 * cursor, so posts inserted meanwhile never repeat or shift later pages. Hidden authors (the
 * home feed also hides muted ones) and reposts of their posts are left out, and so are
 * deleted or disabled accounts. One statement per page, compiled once per shape.
 */
export const postLists = new ShapedQuery(
  (db: Db, v: ListValues, shape: ListShape) =>
    // the page's posts first (filters, order, limit), then the refs for those rows only
    selectPostRefs(
      db,
      v.viewer,
      shape.list === "following"
        ? followingPagePosts(db, v, shape)
        : shape.list === "hashtag"
          ? hashtagPagePosts(db, v, shape)
          : listPagePosts(db, v, shape),
    ),
  (s) => `${s.list}:${s.cursor ? 1 : 0}:${s.limit}`,
);

/** Newest first, the lists' (t, id) order (a page's rows come in its ids' order, which SQL does not promise). */
const newestFirst = (a: { created_at: number; id: number }, b: { created_at: number; id: number }) =>
  b.created_at - a.created_at || b.id - a.id;

/**
 * The page's posts of a hashtag: a walk of the tag's rows of post_hashtags in their posts' time
 * order (post_hashtags_tag_time) from the cursor, each post and author read by primary key as it
 * is checked, stopping at LIMIT + 1 visible rows: a page costs the same however many posts
 * carry the tag (a walk of the posts' time index would skip every untagged post, and a search of
 * the tagged ones would sort them all).
 */
function hashtagPagePosts(db: Db, v: ListValues, shape: ListShape) {
  const hide: Hide = "blocked";
  return db
    .selectFrom("post_hashtags as t")
    .innerJoin("posts", "posts.id", "t.post_id")
    .leftJoin("users as a", "a.id", "posts.author_id")
    .select([...POST_REF_COLUMNS, ...WALK_AUTHOR_COLUMNS])
    .where("t.hashtag_id", "=", (eb) =>
      eb.selectFrom("hashtags").select("hashtags.id").where("hashtags.tag", "=", v.tag),
    )
    .where((eb) =>
      eb.and([authorVisible(eb, "posts.author_id", v.viewer, hide), repostVisible(eb, "posts", v.viewer, hide)]),
    )
    .$if(shape.cursor, (q) => q.where(beforeKey("t.post_created_at", "t.post_id", { t: v.t, id: v.id })))
    .orderBy("t.post_created_at", "desc")
    .orderBy("t.post_id", "desc")
    .limit(literalLimit(shape.limit + 1));
}

/** What a post's images column holds when one of them is a picture (its mime, as JSON.stringify writes PostImage). */
const IMAGE_IN_POST = '%"mime":"image/%';

/** The page's posts of the other lists: a walk of the time index, or of the list's own rows. */
function listPagePosts(db: Db, v: ListValues, shape: ListShape) {
  const hide: Hide = shape.list === "feed" ? "blockedOrMuted" : "blocked";
  // the author as in the following feed's walk (a LEFT JOIN: see followingPagePosts)
  let q = db
    .selectFrom("posts")
    .leftJoin("users as a", "a.id", "posts.author_id")
    .select([...POST_REF_COLUMNS, ...WALK_AUTHOR_COLUMNS])
    .where((eb) =>
      eb.and([authorVisible(eb, "posts.author_id", v.viewer, hide), repostVisible(eb, "posts", v.viewer, hide)]),
    );
  if (shape.list === "user") {
    q = q.where("posts.author_id", "=", v.author);
  } else if (shape.list === "media") {
    // the author's own posts with at least one image (PostImage JSON as createPost stores it)
    q = q
      .where("posts.author_id", "=", v.author)
      .where("posts.repost_of_id", "is", null)
      .where("posts.images", "like", IMAGE_IN_POST);
  } else if (shape.list === "post") {
    q = q.where("posts.cuid", "=", v.cuid);
  }
  if (shape.cursor) q = q.where(beforeKey("posts.created_at", "posts.id", { t: v.t, id: v.id }));
  return q
    .orderBy("posts.created_at", "desc")
    .orderBy("posts.id", "desc")
    .limit(literalLimit(shape.limit + 1));
}

/**
 * One page of a post list (the list query already left out reposts whose original is hidden),
 * answered in one synchronous step, without a promise, when its statement runs straight on
 * SQLite and every view is made from kept parts (cachedPostViewsNow): most pages of a busy feed.
 * The general path (buildPostViews: its awaits, and maps of what is kept and what to read) is a
 * sizeable share of a following page's CPU.
 */
function postListPage(
  db: Db,
  kept: CachedPostViews,
  list: ListShape["list"],
  page: PageRequest,
  given: Pick<ListValues, "viewer"> & Partial<ListValues>,
): Page<PostView> | Promise<Page<PostView>> {
  const c = page.cursor;
  const shape = { list, cursor: c !== null, limit: page.limit };
  const values = { author: 0, tag: "", cuid: "", ...given, t: c?.t ?? 0, id: c?.id ?? 0 };
  return postLists.withRows(db, shape, values, (rows) => viewsOfPage(db, kept, given.viewer, page, rows));
}

/** The page of ROWS: answered now when its views are all kept, else once buildPostViews has read what is missing. */
function viewsOfPage(
  db: Db,
  kept: CachedPostViews,
  viewer: number,
  page: PageRequest,
  rows: PostRef[],
): Page<PostView> | Promise<Page<PostView>> {
  const { items, nextCursor } = pageOf(rows.sort(newestFirst), page.limit, (r) => ({ t: r.created_at, id: r.id }));
  const now = cachedPostViewsNow(kept, viewer, items);
  if (now) return { items: now, nextCursor };
  return buildPostViews(db, kept, viewer, items).then((views) => ({ items: views, nextCursor }));
}

/**
 * The home feed: every post, or (following) only accounts the viewer follows plus the viewer's
 * own. Without a promise when its statement runs straight on SQLite and its views are all kept.
 */
export function feedPage(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  opts: PageRequest & { following: boolean },
): Page<PostView> | Promise<Page<PostView>> {
  return postListPage(db, kept, opts.following ? "following" : "feed", opts, { viewer: viewerId });
}

/**
 * One account's posts and reposts (a profile's list), or with PICTURESONLY its own posts that
 * show a picture (the profile's media gallery); muted accounts stay visible here.
 */
export async function userPostsPage(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  author: UserRow,
  page: PageRequest,
  { picturesOnly = false }: { picturesOnly?: boolean } = {},
): Promise<Page<PostView>> {
  return postListPage(db, kept, picturesOnly ? "media" : "user", page, { viewer: viewerId, author: author.id });
}

/** Posts with a hashtag, newest first. */
export async function hashtagPostsPage(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  tag: string,
  page: PageRequest,
): Promise<Page<PostView>> {
  return postListPage(db, kept, "hashtag", page, { viewer: viewerId, tag });
}

/**
 * The view of one post VIEWER may see (its author, and a repost's original author, live and
 * not blocked either way: the rule of findVisiblePost), in one statement; NOT_FOUND otherwise.
 */
export async function findVisiblePostView(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  cuid: string,
): Promise<PostView> {
  const { items } = await postListPage(db, kept, "post", { cursor: null, limit: 1 }, { viewer: viewerId, cuid });
  if (!items[0]) throw notFound("Post not found");
  return items[0];
}

/**
 * The statement of a page of the viewer's bookmarks, most recently saved first: a walk of the
 * viewer's bookmarks index (post_bookmarks_user_time) from the cursor, each post and author read
 * by primary key as it is checked (posts of deleted or disabled accounts and of those blocked
 * either way with the viewer are left out), stopping at LIMIT + 1 rows, then the refs of those
 * rows only. Compiled once per shape (cursor or not, limit).
 */
const bookmarksPages = new ShapedQuery(
  (db: Db, v: { viewer: number; t: number; id: number }, shape: { cursor: boolean; limit: number }) => {
    // the author as a LEFT JOIN, as in the following feed's walk (followingPagePosts): as an inner
    // join SQLite builds a Bloom filter over every account on every page, which grows with the instance
    const pageRows = db
      .selectFrom("post_bookmarks as b")
      .innerJoin("posts", "posts.id", "b.post_id")
      .leftJoin("users as a", "a.id", "posts.author_id")
      .select([...POST_REF_COLUMNS, ...WALK_AUTHOR_COLUMNS, "b.id as bookmark_id", "b.created_at as bookmarked_at"])
      .where("b.user_id", "=", v.viewer)
      .where((eb) => authorVisible(eb, "posts.author_id", v.viewer, "blocked"))
      .$if(shape.cursor, (q) => q.where(beforeKey("b.created_at", "b.id", { t: v.t, id: v.id })))
      .orderBy("b.created_at", "desc")
      .orderBy("b.id", "desc")
      .limit(literalLimit(shape.limit + 1));
    return selectPostRefs(db, v.viewer, pageRows).select([
      sql.ref<number>("posts.bookmark_id").as("bookmark_id"),
      sql.ref<number>("posts.bookmarked_at").as("bookmarked_at"),
    ]);
  },
  (s) => `${s.cursor ? 1 : 0}:${s.limit}`,
);

const bookmarksShape = (page: PageRequest) => ({ cursor: page.cursor !== null, limit: page.limit });
const bookmarksValues = (viewerId: number, page: PageRequest) => ({
  viewer: viewerId,
  t: page.cursor?.t ?? 0,
  id: page.cursor?.id ?? 0,
});

/** The statement bookmarksPage runs, with its parameters (for the tests that read its plan). */
export const bookmarksPageStatement = (db: Db, viewerId: number, page: PageRequest) =>
  bookmarksPages.compiledWith(db, bookmarksShape(page), bookmarksValues(viewerId, page));

/** The viewer's bookmarks, most recently saved first (cursor on the bookmark's time). */
export async function bookmarksPage(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  page: PageRequest,
): Promise<Page<PostView>> {
  const rows = await bookmarksPages.execute(db, bookmarksShape(page), bookmarksValues(viewerId, page));
  // the page's rows come in its walk's order, which SQL does not promise of the outer select
  rows.sort((x, y) => y.bookmarked_at - x.bookmarked_at || y.bookmark_id - x.bookmark_id);
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.bookmarked_at, id: r.bookmark_id }));
  // a bookmarked repost stays listed; its original shows only while visible
  const hidden = items.some((r) => r.repost_of_id !== null)
    ? new Set(await blockedEitherWayIds(db, viewerId))
    : undefined;
  return { items: await buildPostViews(db, kept, viewerId, items, hidden), nextCursor };
}

/**
 * The statement of a page of the accounts that liked a post or a comment, most recent first: a
 * walk of the target's likes index (post_likes_post_time / comment_likes_comment_id) from the
 * cursor, each account read by primary key as it is checked (deleted ones and those blocked
 * either way with the viewer are skipped), stopping at LIMIT + 1 rows.
 */
export function likersPageQuery(
  db: Db,
  viewerId: number,
  target: { postId: number } | { commentId: number },
  page: PageRequest,
) {
  const base =
    "postId" in target
      ? db.selectFrom("post_likes as l").where("l.post_id", "=", target.postId)
      : db.selectFrom("comment_likes as l").where("l.comment_id", "=", target.commentId);
  return base
    .innerJoin("users", "users.id", "l.user_id")
    .select(["users.id", "users.cuid", "users.username", "users.display_name", "users.avatar_url", "users.is_bot"])
    .select(["l.id as like_id", "l.created_at as liked_at"])
    .where("users.deleted_at", "is", null)
    .where((eb) => notHiddenFrom(eb, "users.id", viewerId, false))
    .$if(page.cursor !== null, (q) => q.where(beforeKey("l.created_at", "l.id", page.cursor!)))
    .orderBy("l.created_at", "desc")
    .orderBy("l.id", "desc")
    .limit(literalLimit(page.limit + 1));
}

/** likersPageQuery compiled once per shape (post or comment, cursor or not, limit). */
const likersPages = new ShapedQuery(
  (
    db: Db,
    v: { viewer: number; target: number; t: number; id: number },
    shape: { of: "post" | "comment"; cursor: boolean; limit: number },
  ) =>
    likersPageQuery(db, v.viewer, shape.of === "post" ? { postId: v.target } : { commentId: v.target }, {
      cursor: shape.cursor ? { t: v.t, id: v.id } : null,
      limit: shape.limit,
    }),
  (s) => `${s.of}:${s.cursor ? 1 : 0}:${s.limit}`,
);

/** What a page of likers shows of each account. */
export type LikerRow = Pick<UserRow, "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot">;

/** Accounts that liked a post or a comment (see likersPageQuery), in one statement. */
export async function likersPage(
  db: Db,
  viewerId: number,
  target: { postId: number } | { commentId: number },
  page: PageRequest,
): Promise<Page<LikerRow & { liked_at: number }>> {
  const c = page.cursor;
  const rows = await likersPages.execute(
    db,
    { of: "postId" in target ? "post" : "comment", cursor: c !== null, limit: page.limit },
    { viewer: viewerId, target: "postId" in target ? target.postId : target.commentId, t: c?.t ?? 0, id: c?.id ?? 0 },
  );
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.liked_at, id: r.like_id }));
  return { items: items.map(({ like_id: _l, ...u }) => u), nextCursor };
}
