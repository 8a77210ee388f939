import type { App } from "../../app";
import type { Db } from "../../db";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { pageOf } from "../../lib/paging";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { assertContentAllowed, assertPostingAllowed, consumePublishBudget } from "../moderation/service";
import { notify } from "../notifications/service";
import type { PageRequest, Page } from "../posts/feed";
import { findVisiblePost, isPostVisibleTo, MAX_POST_LENGTH, notifyMentions } from "../posts/service";
import { afterKey } from "../posts/keyset";
import { toggleMark } from "../posts/marks";
import type { PostRow } from "../posts/table";
import { charCount } from "../posts/text";
import { blockedEitherWayIds, isBlockedEitherWay } from "../relations/service";
import type { UserRow } from "../users/table";
import type { CommentMedia, CommentRow } from "./table";

export const MAX_COMMENT_MEDIA = 4;
const MEDIA_TYPE_BY_KIND: Record<string, CommentMedia["type"]> = {
  "comment-image": "image",
  "comment-video": "video",
  "comment-voice": "voice",
};

export interface CommentView {
  row: CommentRow;
  postCuid: string;
  replyToCuid: string | null;
  author: UserRow;
  media: CommentMedia[];
  likeCount: number;
  replyCount: number;
  liked: boolean;
}

/** A comment the viewer may see: on a visible post, by an author not blocked either way. */
export async function findVisibleComment(db: Db, viewerId: number, cuid: string): Promise<{ comment: CommentRow; post: PostRow }> {
  const comment = await db.selectFrom("comments").selectAll().where("cuid", "=", cuid).executeTakeFirst();
  if (!comment) throw notFound("Comment not found");
  const post = await db.selectFrom("posts").selectAll().where("id", "=", comment.post_id).executeTakeFirst();
  const author = await db.selectFrom("users").select("deleted_at").where("id", "=", comment.author_id).executeTakeFirst();
  if (!post || !author || author.deleted_at !== null || !(await isPostVisibleTo(db, viewerId, post)) || (await isBlockedEitherWay(db, viewerId, comment.author_id))) {
    throw notFound("Comment not found");
  }
  return { comment, post };
}

/**
 * Comments on a visible post (or replies to a comment when replyToId is given). Blocked
 * accounts cannot comment on each other's posts, nor answer each other's comments.
 */
export async function createComment(
  app: App,
  user: UserRow,
  postCuid: string,
  input: { content?: string; media?: Array<{ url: string; type?: string }>; replyToId?: string },
): Promise<CommentRow> {
  const post = await findVisiblePost(app.db, user.id, postCuid);
  const content = (input.content ?? "").trim();
  if (charCount(content) > MAX_POST_LENGTH) throw fieldError("content", `must be at most ${MAX_POST_LENGTH} characters`);
  const mediaIn = input.media ?? [];
  if (content.length === 0 && mediaIn.length === 0) throw fieldError("content", "must not be empty without media");
  if (mediaIn.length > MAX_COMMENT_MEDIA) throw fieldError("media", `must have at most ${MAX_COMMENT_MEDIA} items`);
  let parent: CommentRow | null = null;
  if (input.replyToId !== undefined) {
    parent = (await app.db.selectFrom("comments").selectAll().where("cuid", "=", input.replyToId).executeTakeFirst()) ?? null;
    if (!parent || parent.post_id !== post.id) throw fieldError("replyToId", "must be a comment on this post");
    if (await isBlockedEitherWay(app.db, user.id, parent.author_id)) throw fieldError("replyToId", "must be a comment on this post");
  }
  assertPostingAllowed(app, user);
  assertContentAllowed(app, "content", content);
  const media: CommentMedia[] = [];
  const uploadIds: number[] = [];
  for (const [i, m] of mediaIn.entries()) {
    const u = await resolveOwnUpload(app, m.url, user.id, Object.keys(MEDIA_TYPE_BY_KIND), `media.${i}.url`);
    const type = MEDIA_TYPE_BY_KIND[u.kind]!;
    if (m.type !== undefined && m.type !== type) throw fieldError(`media.${i}.type`, `does not match the upload (a ${type})`);
    media.push({ type, url: u.url, mime: u.mime, width: u.width, height: u.height, durationMs: u.duration_ms, thumbUrl: u.thumb_url, posterUrl: u.poster_url });
    uploadIds.push(u.id);
  }
  consumePublishBudget(app, user.id, "comment");
  const now = app.clock.now();
  const row = await app.db.transaction().execute(async (tx) => {
    const c = await tx
      .insertInto("comments")
      .values({ cuid: newCuid(), post_id: post.id, author_id: user.id, reply_to_id: parent?.id ?? null, content, media: JSON.stringify(media), created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const id of uploadIds) await markAttached(tx, id, now);
    return c;
  });
  await notify(app, { recipientId: post.author_id, actorId: user.id, type: "comment", postId: post.id, commentId: row.id });
  if (parent && parent.author_id !== post.author_id) await notify(app, { recipientId: parent.author_id, actorId: user.id, type: "reply", postId: post.id, commentId: row.id });
  await notifyMentions(app, user.id, post.id, content, "", row.id);
  return row;
}

/** Deletes a comment (and the replies under it): its author or the post's author may. */
export async function deleteComment(app: App, user: UserRow, cuid: string): Promise<void> {
  const { comment, post } = await findVisibleComment(app.db, user.id, cuid);
  if (comment.author_id !== user.id && post.author_id !== user.id) throw forbidden("Only the comment's author or the post's author can delete it");
  await app.db.deleteFrom("comments").where("id", "=", comment.id).execute();
}

/** Likes or unlikes a visible comment; its author is notified of a new like. */
export async function toggleCommentLike(app: App, user: UserRow, cuid: string): Promise<{ liked: boolean; likeCount: number }> {
  const { comment } = await findVisibleComment(app.db, user.id, cuid);
  const { on, count } = await toggleMark(app.db, "comment_likes", comment.id, user.id, app.clock.now());
  if (on) await notify(app, { recipientId: comment.author_id, actorId: user.id, type: "like", postId: comment.post_id, commentId: comment.id });
  return { liked: on, likeCount: count };
}

/**
 * Comments oldest first, keyset-paged on (created_at, id): top-level comments of a post,
 * or the direct replies to one comment. Accounts blocked either way are left out.
 */
export async function commentsPage(db: Db, viewerId: number, parent: { postId: number } | { commentId: number }, page: PageRequest): Promise<Page<CommentView>> {
  const blocked = await blockedEitherWayIds(db, viewerId);
  let q = db
    .selectFrom("comments")
    .innerJoin("users", "users.id", "comments.author_id")
    .selectAll("comments")
    .where("users.deleted_at", "is", null);
  q = "postId" in parent ? q.where("comments.post_id", "=", parent.postId).where("comments.reply_to_id", "is", null) : q.where("comments.reply_to_id", "=", parent.commentId);
  if (blocked.length) q = q.where("comments.author_id", "not in", blocked);
  const c = page.cursor;
  if (c) q = q.where(afterKey("comments.created_at", "comments.id", c));
  const rows = await q.orderBy("comments.created_at", "asc").orderBy("comments.id", "asc").limit(page.limit + 1).execute();
  const { items, nextCursor } = pageOf(rows, page.limit, (r) => ({ t: r.created_at, id: r.id }));
  return { items: await loadCommentViews(db, viewerId, items, blocked), nextCursor };
}

/** Views of comment ROWS for VIEWER in a fixed number of queries. */
export async function loadCommentViews(db: Db, viewerId: number, rows: CommentRow[], blocked: number[] = []): Promise<CommentView[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const parentIds = [...new Set(rows.map((r) => r.reply_to_id).filter((id): id is number => id !== null))];
  let replies = db
    .selectFrom("comments")
    .select(["reply_to_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("reply_to_id", "in", ids);
  if (blocked.length) replies = replies.where("author_id", "not in", blocked);
  const [authors, posts, parents, likes, mine, replyCounts] = await Promise.all([
    db.selectFrom("users").selectAll().where("id", "in", [...new Set(rows.map((r) => r.author_id))]).execute(),
    db.selectFrom("posts").select(["id", "cuid"]).where("id", "in", [...new Set(rows.map((r) => r.post_id))]).execute(),
    parentIds.length ? db.selectFrom("comments").select(["id", "cuid"]).where("id", "in", parentIds).execute() : Promise.resolve([]),
    db.selectFrom("comment_likes").select(["comment_id", (eb) => eb.fn.countAll<number>().as("n")]).where("comment_id", "in", ids).groupBy("comment_id").execute(),
    db.selectFrom("comment_likes").select("comment_id").where("user_id", "=", viewerId).where("comment_id", "in", ids).execute(),
    replies.groupBy("reply_to_id").execute(),
  ]);
  const authorById = new Map(authors.map((a) => [a.id, a]));
  const postCuid = new Map(posts.map((p) => [p.id, p.cuid]));
  const parentCuid = new Map(parents.map((p) => [p.id, p.cuid]));
  const likeCount = new Map(likes.map((l) => [l.comment_id, Number(l.n)]));
  const liked = new Set(mine.map((m) => m.comment_id));
  const replyCount = new Map(replyCounts.map((r) => [r.reply_to_id!, Number(r.n)]));
  return rows.map((row) => ({
    row,
    postCuid: postCuid.get(row.post_id)!,
    replyToCuid: row.reply_to_id === null ? null : (parentCuid.get(row.reply_to_id) ?? null),
    author: authorById.get(row.author_id)!,
    media: JSON.parse(row.media) as CommentMedia[],
    likeCount: likeCount.get(row.id) ?? 0,
    replyCount: replyCount.get(row.id) ?? 0,
    liked: liked.has(row.id),
  }));
}
