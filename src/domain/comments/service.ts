import { defineService, type App } from "../../app";
import type { ExpressionBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { compiledByIds, compiledForViewerByIds, precompiled, ShapedQuery } from "../../db/compiled";
import { VersionedCache } from "../../cache/by-version";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { pageOf } from "../../lib/paging";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { renditionsOf } from "../../media/table";
import { checkAlt, checkContentWarning } from "../../lib/alt-text";
import { releaseFilesIn } from "../../media/references";
import { assertContentAllowed, assertPostingAllowed, consumePublishBudget } from "../moderation/service";
import { notify, withdrawNotification } from "../notifications/service";
import type { PageRequest, Page } from "../posts/feed";
import { findVisiblePost, MAX_POST_LENGTH, notifyMentions, postAccess, visibleByAccess } from "../posts/service";
import { afterKey, literalLimit } from "../posts/keyset";
import { toggleMark } from "../posts/marks";
import type { PostRow } from "../posts/table";
import { coresAndAuthorsOf, cachedPostViewsOf, type PostAuthor } from "../posts/view";
import { charCount } from "../posts/text";
import { blockedEitherWayWithAny, hidesNobody, isBlockedEitherWay } from "../relations/service";
import type { UserRow } from "../users/table";
import type { CommentMedia, CommentRow } from "./table";
import { inTransaction } from "../../db/transaction";

export const MAX_COMMENT_MEDIA = 4;
const MEDIA_TYPE_BY_KIND: Record<string, CommentMedia["type"]> = {
  "comment-image": "image",
  "comment-video": "video",
  "comment-voice": "voice",
};

/** What a comment view shows of its author (a post's author's columns, kept alike). */
export type CommentAuthor = PostAuthor;

/** A comment's own columns, without its counters (a view's counts are the viewer's) and version. */
export type CommentFields = Omit<CommentRow, "like_count" | "reply_count" | "version">;

/**
 * What every reader sees alike of a comment at one version of its row: its columns, media and
 * like count (its reply count depends on the reader's blocks and is read per page). Kept by
 * the App and shared between views: never changed once made.
 */
export interface CommentCore {
  row: CommentFields;
  media: CommentMedia[];
  likeCount: number;
}

export interface CommentView {
  row: CommentFields;
  /** the viewer-independent part the view was made from */
  core: CommentCore;
  postCuid: string;
  replyToCuid: string | null;
  author: CommentAuthor;
  media: CommentMedia[];
  likeCount: number;
  replyCount: number;
  liked: boolean;
}

/**
 * A comment by cuid with its post (columns prefixed `p_`) and, in the same statement,
 * what decides whether the viewer may see it: the liveness of the comment's author, the post's
 * author and a repost's original author, and whether any of them and the viewer blocked the
 * other. Callers add the comment's other columns they need.
 */
function commentAccess(db: Db, v: { viewer: number; cuid: string }) {
  return db
    .selectFrom("comments")
    .innerJoin("posts as p", "p.id", "comments.post_id")
    .leftJoin("users as ca", "ca.id", "comments.author_id")
    .leftJoin("users as pa", "pa.id", "p.author_id")
    .leftJoin("posts as o", "o.id", "p.repost_of_id")
    .leftJoin("users as oa", "oa.id", "o.author_id")
    .select((eb) => [
      "p.cuid as p_cuid",
      "p.author_id as p_author_id",
      "p.repost_of_id as p_repost_of_id",
      "ca.id as v_comment_author",
      "ca.deleted_at as v_comment_author_deleted",
      "pa.id as v_post_author",
      "pa.deleted_at as v_post_author_deleted",
      "pa.disabled_at as v_post_author_disabled",
      "o.id as v_original",
      "oa.id as v_original_author",
      "oa.deleted_at as v_original_author_deleted",
      "oa.disabled_at as v_original_author_disabled",
      blockedEitherWayWithAny(eb, v.viewer, ["ca.id", "pa.id", "oa.id"]).as("v_blocked"),
    ])
    .where("comments.cuid", "=", v.cuid);
}

const commentWithAccess = precompiled((db, v: { viewer: number; cuid: string }) =>
  commentAccess(db, v).selectAll("comments"),
);

type CommentAccessRow = Awaited<ReturnType<ReturnType<typeof commentAccess>["executeTakeFirstOrThrow"]>>;

/** Whether the comment of access row V is one the viewer may see (see findVisibleComment). */
function visibleByCommentAccess<R extends CommentAccessRow>(v: R | undefined): v is R {
  const live = (id: number | null, deleted: number | null, disabled: number | null) =>
    id !== null && deleted === null && disabled === null;
  const visible =
    v !== undefined &&
    v.v_comment_author !== null &&
    v.v_comment_author_deleted === null &&
    live(v.v_post_author, v.v_post_author_deleted, v.v_post_author_disabled) &&
    (v.p_repost_of_id === null ||
      (v.v_original !== null &&
        live(v.v_original_author, v.v_original_author_deleted, v.v_original_author_disabled))) &&
    // SQLite answers 0/1, PostgreSQL false/true
    Number(v.v_blocked) !== 1;
  return visible;
}

/**
 * A comment the viewer may see (one statement): on a visible post (its author and a repost's
 * original author live), by an author who is not deleted, none of them blocked either way.
 */
export async function findVisibleComment(
  db: Db,
  viewerId: number,
  cuid: string,
): Promise<{ comment: CommentFields; post: Pick<PostRow, "id" | "cuid" | "author_id"> }> {
  const [v] = await commentWithAccess(db, { viewer: viewerId, cuid });
  if (!visibleByCommentAccess(v)) throw notFound("Comment not found");
  const comment: CommentFields = {
    id: v.id,
    cuid: v.cuid,
    post_id: v.post_id,
    author_id: v.author_id,
    reply_to_id: v.reply_to_id,
    content: v.content,
    content_warning: v.content_warning,
    media: v.media,
    created_at: v.created_at,
  };
  return { comment, post: { id: v.post_id, cuid: v.p_cuid, author_id: v.p_author_id } };
}

/** A range of comment ids (a kept page's lowest and highest): lo > hi is an empty range. */
export interface CommentIdRange {
  lo: number;
  hi: number;
}

/**
 * What says whether a kept page of a thread answers a reader as it is: the thread's version
 * (comment_threads), whether the reader hides nobody (no blocks either way: the page is then
 * what everyone who hides nobody sees, their likes apart) and whether they liked any comment
 * with an id in the page's range.
 */
export interface ThreadState {
  /** comment_threads.version; -1 when the thread has no row (it never had a comment) */
  version: number;
  hidesNobody: boolean;
  likedInRange: boolean;
}

/** The thread's version and the reader's marks (see ThreadState), for the select list of an access query. */
function threadStateColumns(eb: ExpressionBuilder<any, any>, v: { viewer: number } & CommentIdRange) {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return [
    hidesNobody(e, v.viewer, false).as("t_hides_nobody"),
    e
      .exists(
        e
          .selectFrom("comment_likes as tl")
          .select("tl.id")
          .where("tl.user_id", "=", v.viewer)
          .where("tl.comment_id", ">=", v.lo)
          .where("tl.comment_id", "<=", v.hi),
      )
      .as("t_liked"),
  ];
}

const threadStateOf = (r: { t_version: number | null; t_hides_nobody: unknown; t_liked: unknown }): ThreadState => ({
  version: r.t_version === null ? -1 : Number(r.t_version),
  // SQLite answers 0/1, PostgreSQL false/true
  hidesNobody: Number(r.t_hides_nobody) === 1,
  likedInRange: Number(r.t_liked) === 1,
});

type ThreadValues = { viewer: number; cuid: string } & CommentIdRange;

const postThreadQuery = new ShapedQuery(
  (db: Db, v: ThreadValues) =>
    postAccess(db, v)
      .leftJoin("comment_threads as t", (j) => j.onRef("t.post_id", "=", "posts.id").on("t.parent_id", "=", 0))
      .select(["posts.id", "posts.cuid", "posts.author_id", "t.version as t_version"])
      .select((eb) => threadStateColumns(eb, v)),
  () => "",
);

/** A visible post and its top-level thread's state (see findPostThread). */
export interface PostThread {
  post: Pick<PostRow, "id" | "cuid" | "author_id">;
  thread: ThreadState;
}

function postThreadOf(r: Awaited<ReturnType<typeof postThreadQuery.execute>>[number] | undefined): PostThread {
  if (!visibleByAccess(r)) throw notFound("Post not found");
  return {
    post: { id: r!.id, cuid: r!.cuid, author_id: r!.author_id },
    thread: threadStateOf(r!),
  };
}

/**
 * A post the viewer may see (findVisiblePost's rule) and the state of its top-level
 * comment thread for them, RANGE being the ids of a kept page of it: one statement. Answered
 * without a promise where the statement runs straight on SQLite (ShapedQuery.withRows).
 */
export function findPostThread(
  db: Db,
  viewerId: number,
  cuid: string,
  range: CommentIdRange,
): PostThread | Promise<PostThread> {
  return postThreadQuery.withRows(db, null, { viewer: viewerId, cuid, ...range }, (r) => postThreadOf(r[0]));
}

const commentThreadQuery = new ShapedQuery(
  (db: Db, v: ThreadValues) =>
    commentAccess(db, v)
      .leftJoin("comment_threads as t", (j) =>
        j.onRef("t.post_id", "=", "comments.post_id").onRef("t.parent_id", "=", "comments.id"),
      )
      .select(["comments.id", "comments.cuid", "comments.post_id", "t.version as t_version"])
      .select((eb) => threadStateColumns(eb, v)),
  () => "",
);

/** A visible comment, its post and its replies thread's state (see findCommentThread). */
export interface CommentThread extends PostThread {
  comment: Pick<CommentFields, "id" | "cuid">;
}

function commentThreadOf(r: Awaited<ReturnType<typeof commentThreadQuery.execute>>[number] | undefined): CommentThread {
  if (!visibleByCommentAccess(r)) throw notFound("Comment not found");
  return {
    comment: { id: r.id, cuid: r.cuid },
    post: { id: r.post_id, cuid: r.p_cuid, author_id: r.p_author_id },
    thread: threadStateOf(r),
  };
}

/**
 * A comment the viewer may see (findVisibleComment's rule), its post, and the state of its
 * replies thread for them, RANGE being the ids of a kept page of it: one statement, without a
 * promise where it runs straight on SQLite.
 */
export function findCommentThread(
  db: Db,
  viewerId: number,
  cuid: string,
  range: CommentIdRange,
): CommentThread | Promise<CommentThread> {
  return commentThreadQuery.withRows(db, null, { viewer: viewerId, cuid, ...range }, (r) => commentThreadOf(r[0]));
}

/** Which of the comments IDS the viewer liked (one statement: a probe each). */
const likedAmongQuery = compiledForViewerByIds((db, viewer, ids) =>
  db.selectFrom("comment_likes").select("comment_id").where("user_id", "=", viewer).where("comment_id", "in", ids),
);

/** The ids among IDS of comments VIEWER liked. */
export async function likedAmong(db: Db, viewerId: number, ids: readonly number[]): Promise<Set<number>> {
  return new Set((await likedAmongQuery(db, viewerId, ids)).map((r) => r.comment_id));
}

/**
 * Comments on a visible post (or replies to a comment when replyToId is given). Blocked
 * accounts cannot comment on each other's posts, nor answer each other's comments.
 */
export async function createComment(
  app: App,
  user: UserRow,
  postCuid: string,
  input: {
    content?: string;
    contentWarning?: string | null;
    media?: Array<{ url: string; type?: string; alt?: string | null }>;
    replyToId?: string;
  },
): Promise<CommentRow> {
  const post = await findVisiblePost(app.db, user.id, postCuid);
  const content = (input.content ?? "").trim();
  const contentWarning = checkContentWarning(input.contentWarning);
  if (charCount(content) > MAX_POST_LENGTH)
    throw fieldError("content", `must be at most ${MAX_POST_LENGTH} characters`);
  const mediaIn = input.media ?? [];
  if (content.length === 0 && mediaIn.length === 0) throw fieldError("content", "must not be empty without media");
  if (mediaIn.length > MAX_COMMENT_MEDIA) throw fieldError("media", `must have at most ${MAX_COMMENT_MEDIA} items`);
  let parent: CommentRow | null = null;
  if (input.replyToId !== undefined) {
    parent =
      (await app.db.selectFrom("comments").selectAll().where("cuid", "=", input.replyToId).executeTakeFirst()) ?? null;
    if (!parent || parent.post_id !== post.id) throw fieldError("replyToId", "must be a comment on this post");
    if (await isBlockedEitherWay(app.db, user.id, parent.author_id))
      throw fieldError("replyToId", "must be a comment on this post");
  }
  assertPostingAllowed(app, user);
  assertContentAllowed(app, "content", content);
  if (contentWarning) assertContentAllowed(app, "contentWarning", contentWarning);
  const media: CommentMedia[] = [];
  const uploadIds: number[] = [];
  for (const [i, m] of mediaIn.entries()) {
    const u = await resolveOwnUpload(app, m.url, user.id, Object.keys(MEDIA_TYPE_BY_KIND), `media.${i}.url`);
    const type = MEDIA_TYPE_BY_KIND[u.kind]!;
    if (m.type !== undefined && m.type !== type)
      throw fieldError(`media.${i}.type`, `does not match the upload (a ${type})`);
    const alt = checkAlt(m.alt, `media.${i}.alt`);
    const renditions = renditionsOf(u);
    media.push({
      type,
      url: u.url,
      mime: u.mime,
      width: u.width,
      height: u.height,
      durationMs: u.duration_ms,
      thumbUrl: u.thumb_url,
      posterUrl: u.poster_url,
      ...(renditions.length ? { renditions } : {}),
      ...(alt !== undefined ? { alt } : {}),
    });
    uploadIds.push(u.id);
  }
  await consumePublishBudget(app, user.id, "comment");
  const now = app.clock.now();
  const row = await inTransaction(app.storage, async ({ db: tx }) => {
    const c = await tx
      .insertInto("comments")
      .values({
        cuid: newCuid(),
        post_id: post.id,
        author_id: user.id,
        reply_to_id: parent?.id ?? null,
        content,
        content_warning: contentWarning,
        media: JSON.stringify(media),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const id of uploadIds) await markAttached(tx, id, now);
    return c;
  });
  await notify(app, {
    recipientId: post.author_id,
    actorId: user.id,
    type: "comment",
    postId: post.id,
    commentId: row.id,
  });
  if (parent && parent.author_id !== post.author_id)
    await notify(app, {
      recipientId: parent.author_id,
      actorId: user.id,
      type: "reply",
      postId: post.id,
      commentId: row.id,
    });
  await notifyMentions(app, user.id, post.id, content, "", row.id);
  return row;
}

/** Deletes a comment (and the replies under it): its author or the post's author may. */
export async function deleteComment(app: App, user: UserRow, cuid: string): Promise<void> {
  const { comment, post } = await findVisibleComment(app.db, user.id, cuid);
  if (comment.author_id !== user.id && post.author_id !== user.id)
    throw forbidden("Only the comment's author or the post's author can delete it");
  await removeComment(app, comment.id);
}

/**
 * Removes a comment and the replies under it (its author, the post's author or an
 * administrator); their files go with the released-uploads cleanup unless used elsewhere.
 */
export async function removeComment(app: App, commentId: number): Promise<void> {
  await inTransaction(app.storage, async ({ db: tx }) => {
    const comment = await tx
      .selectFrom("comments")
      .select(["post_id", "created_at"])
      .where("id", "=", commentId)
      .executeTakeFirst();
    if (!comment) return;
    // the replies go by cascade: they are among the post's comments written since it, and
    // letting go of a file still in use costs only a check
    const media = await tx
      .selectFrom("comments")
      .select("media")
      .where("post_id", "=", comment.post_id)
      .where("created_at", ">=", comment.created_at)
      .where("media", "<>", "[]")
      .execute();
    await tx.deleteFrom("comments").where("id", "=", commentId).execute();
    await releaseFilesIn(
      tx,
      media.map((m) => m.media),
      app.clock.now(),
    );
  });
}

/** Any comment by public id, whoever wrote it (moderation looks past blocks and disabled authors). */
export const findCommentByCuid = (db: Db, cuid: string) =>
  db.selectFrom("comments").selectAll().where("cuid", "=", cuid).executeTakeFirst();

/** Likes or unlikes a visible comment; its author is notified of a new like. */
export async function toggleCommentLike(
  app: App,
  user: UserRow,
  cuid: string,
): Promise<{ liked: boolean; likeCount: number }> {
  const { comment } = await findVisibleComment(app.db, user.id, cuid);
  const { on, count } = await toggleMark(app.db, "comment_likes", comment.id, user.id, app.clock.now());
  const like = {
    recipientId: comment.author_id,
    actorId: user.id,
    type: "like",
    postId: comment.post_id,
    commentId: comment.id,
  } as const;
  if (on) await notify(app, like);
  else await withdrawNotification(app.db, like);
  return { liked: on, likeCount: count ?? 0 };
}

/** Most comment cores kept per App: the oldest kept goes first. */
const MAX_CACHED_COMMENTS = 5_000;

/**
 * The App's kept comment cores, by comment id and comments.version, and comment authors' shown
 * columns, by account id and users.profile_version (the same kept authors as post views'):
 * both versions are raised by triggers on every change, whoever makes it, so a kept value whose
 * version a read does not name is not used, and nothing has to be told of changes.
 */
export interface CachedCommentViews {
  comments: VersionedCache<CommentCore>;
  authors: VersionedCache<CommentAuthor>;
}

const cachedCommentViewsService = defineService("comments:kept-views", (app): CachedCommentViews => ({
  comments: new VersionedCache<CommentCore>(MAX_CACHED_COMMENTS),
  authors: cachedPostViewsOf(app).authors,
}));

/** The comment cores and authors APP keeps for its comment views. */
export const cachedCommentViewsOf = (app: App): CachedCommentViews => app.services.get(cachedCommentViewsService);

/**
 * What a page of comment views reads per request, besides the kept parts: each comment's id,
 * version, author and author's profile version, its time (the page's key), its reply count
 * (the counter column, or when the viewer has blocks a count without the replies of accounts
 * blocked either way) and the viewer's like. The comments' and authors' columns are read only
 * for those not kept.
 */
function selectCommentRefs(db: Db, viewerId: number, asEveryone = false) {
  return db
    .selectFrom("comments")
    .innerJoin("users", "users.id", "comments.author_id")
    .select([
      "comments.id",
      "comments.version",
      "comments.author_id",
      "comments.created_at",
      "users.profile_version as a_version",
    ])
    .select((eb) => {
      const e = eb as unknown as ExpressionBuilder<Database, never>;
      return [
        // the counter, or for a viewer with blocks the replies counted without blocked accounts'
        // (read as everyone: the counter)
        asEveryone
          ? eb.ref("comments.reply_count").as("reply_count")
          : eb
              .case()
              .when(hidesNobody(e, viewerId, false))
              .then(eb.ref("comments.reply_count"))
              .else(
                eb
                  .selectFrom("comments as r")
                  .select(eb.fn.countAll<number>().as("n"))
                  .whereRef("r.reply_to_id", "=", "comments.id")
                  .where((x) => x.not(blockedEitherWayWithAny(x, viewerId, ["r.author_id"]))),
              )
              .end()
              .as("reply_count"),
        eb
          .exists(
            eb
              .selectFrom("comment_likes as ml")
              .select("ml.id")
              .whereRef("ml.comment_id", "=", "comments.id")
              .where("ml.user_id", "=", viewerId),
          )
          .as("liked"),
      ];
    });
}

type CommentRef = Awaited<ReturnType<ReturnType<typeof selectCommentRefs>["executeTakeFirstOrThrow"]>>;

// the columns of comments whose core is not kept
const commentsByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("comments")
    .select([
      "id",
      "cuid",
      "post_id",
      "author_id",
      "reply_to_id",
      "content",
      "content_warning",
      "media",
      "created_at",
      "like_count",
      "version",
    ])
    .where("id", "in", ids),
);

/** Where the comments of a view list are: their post, and the comment they answer (null: top level). */
export interface CommentPlace {
  post: { id: number; cuid: string };
  replyTo: { id: number; cuid: string } | null;
}

/**
 * Views of REFS at PLACE (null: each ref carries its own) for the viewer the refs were read for,
 * in their order: cores and authors KEPT holds as kept, the rest read (one statement each, only
 * when something is missing) and kept. A comment deleted since its ref was read is left out.
 */
async function buildCommentViews(
  db: Db,
  kept: CachedCommentViews,
  refs: Array<CommentRef & { place?: CommentPlace }>,
  place: CommentPlace | null,
): Promise<CommentView[]> {
  const { cores, authors } = await coresAndAuthorsOf(
    db,
    { cores: kept.comments, authors: kept.authors },
    refs,
    (ids) => commentsByIds(db, ids),
    (c) => ({
      id: c.id,
      version: Number(c.version),
      value: {
        row: {
          id: c.id,
          cuid: c.cuid,
          post_id: c.post_id,
          author_id: c.author_id,
          reply_to_id: c.reply_to_id,
          content: c.content,
          content_warning: c.content_warning,
          media: c.media,
          created_at: c.created_at,
        },
        media: JSON.parse(c.media) as CommentMedia[],
        likeCount: Number(c.like_count),
      },
    }),
  );
  const views: CommentView[] = [];
  for (const r of refs) {
    const core = cores.get(r.id);
    const author = authors.get(r.author_id);
    const at = place ?? r.place;
    if (!core || !author || !at) continue;
    views.push({
      row: core.row,
      core,
      postCuid: at.post.cuid,
      replyToCuid: at.replyTo?.cuid ?? null,
      author,
      media: core.media,
      likeCount: core.likeCount,
      replyCount: Number(r.reply_count ?? 0),
      // SQLite answers 1, PostgreSQL true
      liked: Number(r.liked) === 1,
    });
  }
  return views;
}

/** A page of a post's top-level comments or of one comment's replies, in one statement per page. */
export const commentPages = new ShapedQuery(
  (
    db: Db,
    v: { viewer: number; parent: number; t: number; id: number },
    shape: { of: "post" | "comment"; cursor: boolean; limit: number; asEveryone: boolean },
  ) => {
    let q = selectCommentRefs(db, v.viewer, shape.asEveryone).where("users.deleted_at", "is", null);
    // the per-row probes only for a viewer with blocks (evaluated once: most viewers have none)
    if (!shape.asEveryone)
      q = q.where((eb) =>
        eb.or([
          hidesNobody(eb as unknown as ExpressionBuilder<Database, never>, v.viewer, false),
          eb.not(blockedEitherWayWithAny(eb, v.viewer, ["comments.author_id"])),
        ]),
      );
    q =
      shape.of === "post"
        ? q.where("comments.post_id", "=", v.parent).where("comments.reply_to_id", "is", null)
        : q.where("comments.reply_to_id", "=", v.parent);
    if (shape.cursor) q = q.where(afterKey("comments.created_at", "comments.id", { t: v.t, id: v.id }));
    return q
      .orderBy("comments.created_at", "asc")
      .orderBy("comments.id", "asc")
      .limit(literalLimit(shape.limit + 1));
  },
  (s) => `${s.of}:${s.cursor ? 1 : 0}:${s.limit}:${s.asEveryone ? 1 : 0}`,
);

/**
 * Comments oldest first, keyset-paged on (created_at, id): the top-level comments of POST, or
 * the direct replies to REPLYTO (a comment on POST). Accounts blocked either way are left out;
 * AS_EVERYONE reads the page as a viewer who hides nobody sees it (their likes still theirs),
 * for a caller that learnt in the same request that the viewer hides nobody and keeps the page
 * for others (blocks made since then do not make it theirs).
 */
export async function commentsPage(
  db: Db,
  kept: CachedCommentViews,
  viewerId: number,
  place: CommentPlace,
  page: PageRequest,
  asEveryone = false,
): Promise<Page<CommentView>> {
  const c = page.cursor;
  const shape = {
    of: place.replyTo ? ("comment" as const) : ("post" as const),
    cursor: c !== null,
    limit: page.limit,
    asEveryone,
  };
  const rows = await commentPages.execute(db, shape, {
    viewer: viewerId,
    parent: place.replyTo?.id ?? place.post.id,
    t: c?.t ?? 0,
    id: c?.id ?? 0,
  });
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.created_at, id: r.id }));
  return { items: await buildCommentViews(db, kept, items, place), nextCursor };
}

/** Views of comment ROWS for VIEWER, in the order given (a comment deleted meanwhile is left out). */
export async function loadCommentViews(
  db: Db,
  kept: CachedCommentViews,
  viewerId: number,
  rows: CommentFields[],
): Promise<CommentView[]> {
  if (!rows.length) return [];
  const found = await selectCommentRefs(db, viewerId)
    .innerJoin("posts as p", "p.id", "comments.post_id")
    .leftJoin("comments as parent", "parent.id", "comments.reply_to_id")
    .select(["comments.post_id", "comments.reply_to_id", "p.cuid as post_cuid", "parent.cuid as parent_cuid"])
    .where(
      "comments.id",
      "in",
      rows.map((r) => r.id),
    )
    .execute();
  const byId = new Map(
    found.map((r) => [
      r.id,
      {
        ...r,
        place: {
          post: { id: r.post_id, cuid: r.post_cuid },
          replyTo: r.reply_to_id === null ? null : { id: r.reply_to_id, cuid: r.parent_cuid! },
        },
      },
    ]),
  );
  const ordered = rows.map((r) => byId.get(r.id)).filter((r) => r !== undefined);
  return buildCommentViews(db, kept, ordered, null);
}
