import type { App } from "../../app";
import type { Db } from "../../db";
import { precompiled } from "../../db/compiled";
import { AppError, fieldError, forbidden, notFound, validationError, type FieldErrors } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { renditionsOf } from "../../media/table";
import { checkAlt, checkContentWarning } from "../../lib/alt-text";
import { releaseFilesIn } from "../../media/references";
import type { UploadRow } from "../../media/table";
import { assertContentAllowed, assertPostingAllowed, consumePublishBudget } from "../moderation/service";
import { notify, withdrawNotification } from "../notifications/service";
import { blockedEitherWayWithAny, followerIds } from "../relations/service";
import { postSearch } from "../search/posts";
import type { UserRow } from "../users/table";
import { toggleMark } from "./marks";
import { postRowOf } from "./view";
import type { PostImage, PostRow } from "./table";
import { charCount, parseHashtags, parseMentions } from "./text";
import { pick } from "../../lib/objects";
import { isUniqueViolation } from "../../db/errors";
import { inTransaction } from "../../db/transaction";
import { parsePreviewState, previewStateFor, queuePreview } from "../links/preview";

export const MAX_POST_LENGTH = 2000;
export const MAX_POST_IMAGES = 10;
export const POST_UPLOAD_KINDS = ["post", "post-video", "post-file"];

export interface PollInput {
  question?: string;
  options: string[];
  multiple?: boolean;
}

export interface NewPostInput {
  content: string;
  contentWarning?: string | null;
  imageUrls?: string[];
  /** descriptions of the images, by the index of imageUrls */
  imageAlts?: Array<string | null>;
  poll?: PollInput;
  clientPostId?: string;
  /** false: no preview of the text's first link (its author removed it) */
  linkPreview?: boolean;
}

/**
 * A post by cuid and, in the same statement, what decides whether the viewer may see it: the
 * liveness of its author and of a repost's original author, and whether either of them and
 * the viewer blocked the other. Callers add the post's columns they need.
 */
export function postAccess(db: Db, v: { viewer: number; cuid: string }) {
  return db
    .selectFrom("posts")
    .leftJoin("users as pa", "pa.id", "posts.author_id")
    .leftJoin("posts as o", "o.id", "posts.repost_of_id")
    .leftJoin("users as oa", "oa.id", "o.author_id")
    .select((eb) => [
      "posts.repost_of_id",
      "pa.id as v_author",
      "pa.deleted_at as v_author_deleted",
      "pa.disabled_at as v_author_disabled",
      "o.id as v_original",
      "oa.id as v_original_author",
      "oa.deleted_at as v_original_author_deleted",
      "oa.disabled_at as v_original_author_disabled",
      blockedEitherWayWithAny(eb, v.viewer, ["pa.id", "oa.id"]).as("v_blocked"),
    ])
    .where("posts.cuid", "=", v.cuid);
}

type PostAccessRow = Awaited<ReturnType<ReturnType<typeof postAccess>["executeTakeFirstOrThrow"]>>;

const postWithAccess = precompiled((db, v: { viewer: number; cuid: string }) => postAccess(db, v).selectAll("posts"));

/** Whether the post of access row R is visible: its author (and a repost's original author) alive and not blocked either way. */
export function visibleByAccess(r: PostAccessRow | undefined): boolean {
  return (
    r !== undefined &&
    r.v_author !== null &&
    r.v_author_deleted === null &&
    r.v_author_disabled === null &&
    (r.repost_of_id === null ||
      (r.v_original !== null &&
        r.v_original_author !== null &&
        r.v_original_author_deleted === null &&
        r.v_original_author_disabled === null)) &&
    // SQLite answers 0/1, PostgreSQL false/true
    Number(r.v_blocked) !== 1
  );
}

/** A post the viewer may see (one statement): its author (and a repost's original author) alive and not blocked either way. */
export async function findVisiblePost(db: Db, viewerId: number, cuid: string): Promise<PostRow> {
  const [r] = await postWithAccess(db, { viewer: viewerId, cuid });
  if (!visibleByAccess(r)) throw notFound("Post not found");
  return postRowOf(r!);
}

/** Any post by public id, whoever wrote it (moderation looks past blocks and disabled authors). */
export const findPostByCuid = (db: Db, cuid: string) =>
  db.selectFrom("posts").selectAll().where("cuid", "=", cuid).executeTakeFirst();

/** The post the author may change: others get NOT_FOUND when they cannot see it, FORBIDDEN when they can. */
async function findOwnPost(db: Db, user: UserRow, cuid: string): Promise<PostRow> {
  const post = await findVisiblePost(db, user.id, cuid);
  if (post.author_id !== user.id) throw forbidden("Only the author can change this post");
  return post;
}

/** Checks poll input; returns the cleaned poll. */
function cleanPoll(poll: PollInput): PollInput {
  const errors: FieldErrors = {};
  const question = (poll.question ?? "").trim();
  if (charCount(question) > 300) errors["poll.question"] = ["must be at most 300 characters"];
  const options = poll.options.map((o) => o.trim());
  if (options.length < 2 || options.length > 12) errors["poll.options"] = ["must have 2 to 12 options"];
  else if (options.some((o) => o.length === 0 || charCount(o) > 100))
    errors["poll.options"] = ["each option must be 1 to 100 characters"];
  else if (new Set(options.map((o) => o.toLowerCase())).size !== options.length)
    errors["poll.options"] = ["options must differ"];
  if (Object.keys(errors).length) throw validationError(errors);
  return { question, options, multiple: poll.multiple ?? false };
}

/** Resolves attachment URLs to the author's own uploads of post kinds, with their descriptions by index. */
async function resolveImages(
  app: App,
  ownerId: number,
  urls: string[],
  alts: Array<string | null> | undefined,
): Promise<{ images: PostImage[]; uploads: UploadRow[] }> {
  if (urls.length > MAX_POST_IMAGES) throw fieldError("imageUrls", `must have at most ${MAX_POST_IMAGES} items`);
  if (new Set(urls).size !== urls.length) throw fieldError("imageUrls", "must not repeat a file");
  const altTexts = checkAlts(alts, urls.length);
  const uploads: UploadRow[] = [];
  for (const [i, url] of urls.entries())
    uploads.push(await resolveOwnUpload(app, url, ownerId, POST_UPLOAD_KINDS, `imageUrls.${i}`));
  const images = uploads.map((u, i) => {
    const image: PostImage = {
      url: u.url,
      kind: u.kind,
      mime: u.mime,
      width: u.width,
      height: u.height,
      thumbUrl: u.thumb_url,
      posterUrl: u.poster_url,
    };
    const renditions = renditionsOf(u);
    if (renditions.length) image.renditions = renditions;
    if (altTexts[i] !== undefined) image.alt = altTexts[i];
    return image;
  });
  return { images, uploads };
}

/** Descriptions of COUNT images by index (imageAlts): at most one each, each checked. */
function checkAlts(alts: Array<string | null> | undefined, count: number): Array<string | undefined> {
  if (alts === undefined) return [];
  if (alts.length > count) throw fieldError("imageAlts", "must not have more items than the images");
  return alts.map((alt, i) => checkAlt(alt, `imageAlts.${i}`));
}

/** Stores the post's hashtags (replacing earlier ones on edit). */
async function saveHashtags(db: Db, now: number, postId: number, content: string): Promise<void> {
  await db.deleteFrom("post_hashtags").where("post_id", "=", postId).execute();
  for (const tag of parseHashtags(content)) {
    await db
      .insertInto("hashtags")
      .values({ tag, created_at: now })
      .onConflict((oc) => oc.column("tag").doNothing())
      .execute();
    const row = await db.selectFrom("hashtags").select("id").where("tag", "=", tag).executeTakeFirstOrThrow();
    // with the post's own time (an edit's NOW is not it): a hashtag's page walks it
    await db
      .insertInto("post_hashtags")
      .columns(["post_id", "hashtag_id", "post_created_at"])
      .expression((eb) =>
        eb
          .selectFrom("posts")
          .select([eb.val(postId).as("post_id"), eb.val(row.id).as("hashtag_id"), "created_at"])
          .where("id", "=", postId),
      )
      .onConflict((oc) => oc.columns(["hashtag_id", "post_id"]).doNothing())
      .execute();
  }
}

/** Notifies accounts newly mentioned in CONTENT (not those already in PREVIOUS). */
export async function notifyMentions(
  app: App,
  actorId: number,
  postId: number,
  content: string,
  previous = "",
  commentId?: number,
): Promise<void> {
  const before = new Set(parseMentions(previous));
  const names = parseMentions(content).filter((n) => !before.has(n));
  if (!names.length) return;
  const users = await app.db
    .selectFrom("users")
    .select("id")
    .where("username_lower", "in", names)
    .where("deleted_at", "is", null)
    .execute();
  for (const u of users) await notify(app, { recipientId: u.id, actorId, type: "mention", postId, commentId });
}

/**
 * Tells the author's followers (except those who muted the author) that posts appeared, and the
 * author's other devices too unless TO_AUTHOR is false: a repost is not news to the person who
 * made it (the post they reposted is already on their screen).
 */
async function announce(
  app: App,
  authorId: number,
  posts: Array<Pick<PostRow, "id" | "cuid">>,
  toAuthor = true,
): Promise<void> {
  const [followers, muters] = await Promise.all([
    followerIds(app.db, authorId),
    app.db.selectFrom("mutes").select("muter_id").where("muted_id", "=", authorId).execute(),
  ]);
  const muted = new Set(muters.map((m) => m.muter_id));
  app.hooks.publish({
    type: "posts:published",
    to: [...followers.filter((id) => !muted.has(id)), ...(toAuthor ? [authorId] : [])],
    authorId,
    posts: posts.map((p) => pick(p, "id", "cuid")),
  });
}

/**
 * Creates a post. With clientPostId the call is idempotent per author: a repeat (even a
 * concurrent one, caught by the unique index) returns the first post and creates nothing.
 */
export async function createPost(
  app: App,
  author: UserRow,
  input: NewPostInput,
): Promise<{ post: PostRow; created: boolean }> {
  const clientPostId = input.clientPostId;
  if (clientPostId !== undefined) {
    if (clientPostId.length === 0 || clientPostId.length > 64)
      throw fieldError("clientPostId", "must be 1 to 64 characters");
    const existing = await findByClientId(app.db, author.id, clientPostId);
    if (existing) return { post: existing, created: false };
  }
  const content = input.content.trim();
  if (charCount(content) > MAX_POST_LENGTH)
    throw fieldError("content", `must be at most ${MAX_POST_LENGTH} characters`);
  const poll = input.poll ? cleanPoll(input.poll) : null;
  const urls = input.imageUrls ?? [];
  const contentWarning = checkContentWarning(input.contentWarning);
  if (content.length === 0 && urls.length === 0 && !poll)
    throw fieldError("content", "must not be empty without images or a poll");
  assertPostingAllowed(app, author);
  assertContentAllowed(app, "content", content);
  if (contentWarning) assertContentAllowed(app, "contentWarning", contentWarning);
  if (poll) {
    assertContentAllowed(app, "poll.question", poll.question ?? "");
    for (const o of poll.options) assertContentAllowed(app, "poll.options", o);
  }
  const { images, uploads } = await resolveImages(app, author.id, urls, input.imageAlts);
  await consumePublishBudget(app, author.id, "post");

  const now = app.clock.now();
  const linkPreview = await previewStateFor(app.db, content, { off: input.linkPreview === false }, now);
  let post: PostRow;
  try {
    post = await inTransaction(app.storage, async (scope) => {
      const tx = scope.db;
      const row = await tx
        .insertInto("posts")
        .values({
          cuid: newCuid(),
          author_id: author.id,
          content,
          content_warning: contentWarning,
          images: JSON.stringify(images),
          link_preview: linkPreview && JSON.stringify(linkPreview),
          repost_of_id: null,
          client_post_id: clientPostId ?? null,
          created_at: now,
          edited_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await queuePreview(scope, { table: "posts", id: row.id }, linkPreview);
      if (poll) {
        const p = await tx
          .insertInto("polls")
          .values({ cuid: newCuid(), post_id: row.id, question: poll.question ?? "", multiple: poll.multiple ? 1 : 0 })
          .returning("id")
          .executeTakeFirstOrThrow();
        await tx
          .insertInto("poll_options")
          .values(poll.options.map((text, position) => ({ cuid: newCuid(), poll_id: p.id, position, text })))
          .execute();
      }
      await saveHashtags(tx, now, row.id, content);
      await postSearch.indexPost(tx, row.id, content);
      for (const u of uploads) await markAttached(tx, u.id, now);
      return row;
    });
  } catch (err) {
    if (clientPostId !== undefined && isUniqueViolation(err)) {
      const existing = await findByClientId(app.db, author.id, clientPostId);
      if (existing) return { post: existing, created: false };
    }
    throw err;
  }
  await announce(app, author.id, [post]);
  await notifyMentions(app, author.id, post.id, content);
  return { post, created: true };
}

const findByClientId = (db: Db, authorId: number, clientPostId: string) =>
  db
    .selectFrom("posts")
    .selectAll()
    .where("author_id", "=", authorId)
    .where("client_post_id", "=", clientPostId)
    .executeTakeFirst();

/**
 * Edits the author's post text, content warning, attachments and/or their descriptions
 * (imageAlts alone describes the images the post has); hashtags, index and new mentions follow.
 * A new first link gets its own preview; linkPreview false removes it, true brings it back.
 */
export async function editPost(
  app: App,
  user: UserRow,
  cuid: string,
  input: {
    content?: string;
    contentWarning?: string | null;
    imageUrls?: string[];
    imageAlts?: Array<string | null>;
    linkPreview?: boolean;
  },
): Promise<PostRow> {
  const post = await findOwnPost(app.db, user, cuid);
  if (post.repost_of_id !== null) throw fieldError("content", "a repost has no content to edit");
  if (
    input.content === undefined &&
    input.imageUrls === undefined &&
    input.imageAlts === undefined &&
    input.contentWarning === undefined &&
    input.linkPreview === undefined
  )
    throw fieldError("content", "give content, contentWarning, imageUrls, imageAlts or linkPreview to change");
  const contentWarning =
    input.contentWarning !== undefined ? checkContentWarning(input.contentWarning) : post.content_warning;
  if (contentWarning && input.contentWarning !== undefined) assertContentAllowed(app, "contentWarning", contentWarning);
  assertPostingAllowed(app, user);
  const content = input.content !== undefined ? input.content.trim() : post.content;
  if (charCount(content) > MAX_POST_LENGTH)
    throw fieldError("content", `must be at most ${MAX_POST_LENGTH} characters`);
  assertContentAllowed(app, "content", content);
  let images = JSON.parse(post.images) as PostImage[];
  let uploads: UploadRow[] = [];
  if (input.imageUrls !== undefined) {
    // without imageAlts, images the post keeps keep their descriptions
    const keptAlts = new Map(images.map((image) => [image.url, image.alt ?? null]));
    const alts = input.imageAlts ?? input.imageUrls.map((url) => keptAlts.get(url) ?? null);
    ({ images, uploads } = await resolveImages(app, user.id, input.imageUrls, alts));
  } else if (input.imageAlts !== undefined) {
    const alts = checkAlts(input.imageAlts, images.length);
    images = images.map((image, i) => {
      if (i >= alts.length) return image;
      const { alt: _old, ...rest } = image;
      return alts[i] === undefined ? rest : { ...rest, alt: alts[i] };
    });
  }
  const hasPoll =
    (await app.db.selectFrom("polls").select("id").where("post_id", "=", post.id).executeTakeFirst()) !== undefined;
  if (content.length === 0 && images.length === 0 && !hasPoll)
    throw fieldError("content", "must not be empty without images or a poll");
  const now = app.clock.now();
  const off = input.linkPreview === undefined ? undefined : !input.linkPreview;
  const linkPreview = await previewStateFor(app.db, content, { off }, now, parsePreviewState(post.link_preview));
  const updated = await inTransaction(app.storage, async (scope) => {
    const tx = scope.db;
    const row = await tx
      .updateTable("posts")
      .set({
        content,
        content_warning: contentWarning,
        images: JSON.stringify(images),
        link_preview: linkPreview && JSON.stringify(linkPreview),
        edited_at: now,
      })
      .where("id", "=", post.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await queuePreview(scope, { table: "posts", id: post.id }, linkPreview);
    await saveHashtags(tx, now, post.id, content);
    await postSearch.indexPost(tx, post.id, content);
    for (const u of uploads) await markAttached(tx, u.id, now);
    return row;
  });
  await notifyMentions(app, user.id, post.id, content, post.content);
  return updated;
}

/** Deletes the author's post (with its reposts, comments, likes); followers get post:deleted. */
export async function deletePost(app: App, user: UserRow, cuid: string): Promise<void> {
  await removePost(app, await findOwnPost(app.db, user, cuid));
}

/**
 * Removes POST with its reposts, comments and likes, as its author or an administrator does;
 * the files they showed go with the released-uploads cleanup unless used elsewhere.
 */
export async function removePost(app: App, post: PostRow): Promise<void> {
  const reposts = await app.db
    .selectFrom("posts")
    .select(["id", "cuid", "author_id"])
    .where("repost_of_id", "=", post.id)
    .execute();
  await inTransaction(app.storage, async ({ db: tx }) => {
    // its comments (and its reposts') go by cascade: their files are let go with the post's
    const comments = await tx
      .selectFrom("comments")
      .select("media")
      .where("post_id", "in", [post.id, ...reposts.map((r) => r.id)])
      .where("media", "<>", "[]")
      .execute();
    await tx.deleteFrom("posts").where("id", "=", post.id).execute();
    await releaseFilesIn(tx, [post.images, ...comments.map((c) => c.media)], app.clock.now());
  });
  await announceDeleted(app, post.author_id, post);
  for (const r of reposts) await announceDeleted(app, r.author_id, r);
}

async function announceDeleted(app: App, authorId: number, post: Pick<PostRow, "id" | "cuid">): Promise<void> {
  const followers = await followerIds(app.db, authorId);
  app.hooks.publish({ type: "post:deleted", to: [...followers, authorId], post: pick(post, "id", "cuid") });
}

/** Likes or unlikes a visible post; the author is notified of a new like. */
export async function toggleLike(
  app: App,
  user: UserRow,
  cuid: string,
): Promise<{ liked: boolean; likeCount: number }> {
  const post = await findVisiblePost(app.db, user.id, cuid);
  const { on, count } = await toggleMark(app.db, "post_likes", post.id, user.id, app.clock.now());
  const like = { recipientId: post.author_id, actorId: user.id, type: "like", postId: post.id } as const;
  if (on) await notify(app, like);
  else await withdrawNotification(app.db, like);
  return { liked: on, likeCount: count ?? 0 };
}

/** Adds or removes a visible post from the caller's bookmarks (private to the caller). */
export async function toggleBookmark(app: App, user: UserRow, cuid: string): Promise<{ bookmarked: boolean }> {
  const post = await findVisiblePost(app.db, user.id, cuid);
  const { on } = await toggleMark(app.db, "post_bookmarks", post.id, user.id, app.clock.now());
  return { bookmarked: on };
}

/**
 * Reposts a visible post (a repost of a repost reposts the original), or takes the
 * caller's repost back. A new repost is a post: it counts against the hourly budget,
 * reaches followers' feeds, and notifies the original's author.
 */
export async function toggleRepost(
  app: App,
  user: UserRow,
  cuid: string,
): Promise<{ reposted: boolean; repostCount: number; repost: PostRow | null }> {
  let target = await findVisiblePost(app.db, user.id, cuid);
  if (target.repost_of_id !== null)
    target = await app.db
      .selectFrom("posts")
      .selectAll()
      .where("id", "=", target.repost_of_id)
      .executeTakeFirstOrThrow();
  // the counter column its triggers keep
  const count = async () =>
    Number(
      (await app.db.selectFrom("posts").select("repost_count").where("id", "=", target.id).executeTakeFirstOrThrow())
        .repost_count,
    );
  const existing = await app.db
    .selectFrom("posts")
    .select(["id", "cuid"])
    .where("author_id", "=", user.id)
    .where("repost_of_id", "=", target.id)
    .executeTakeFirst();
  if (existing) {
    await app.db.deleteFrom("posts").where("id", "=", existing.id).execute();
    await withdrawNotification(app.db, {
      recipientId: target.author_id,
      actorId: user.id,
      type: "repost",
      postId: target.id,
    });
    await announceDeleted(app, user.id, existing);
    return { reposted: false, repostCount: await count(), repost: null };
  }
  assertPostingAllowed(app, user);
  await consumePublishBudget(app, user.id, "post");
  let repost: PostRow;
  try {
    repost = await app.db
      .insertInto("posts")
      .values({
        cuid: newCuid(),
        author_id: user.id,
        content: "",
        images: "[]",
        repost_of_id: target.id,
        client_post_id: null,
        created_at: app.clock.now(),
        edited_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // a concurrent repost by the same account won the unique index
    if (!isUniqueViolation(err)) throw err;
    return { reposted: true, repostCount: await count(), repost: null };
  }
  await announce(app, user.id, [repost], false);
  await notify(app, { recipientId: target.author_id, actorId: user.id, type: "repost", postId: target.id });
  return { reposted: true, repostCount: await count(), repost };
}

/**
 * Votes in a post's poll, once per account: option cuids or 0-based indexes; several
 * only in a multiple-choice poll. The poll's author is notified. Returns the post.
 */
export async function votePoll(
  app: App,
  user: UserRow,
  cuid: string,
  choice: { optionIds?: string[]; options?: number[] },
): Promise<PostRow> {
  const post = await findVisiblePost(app.db, user.id, cuid);
  const poll = await app.db.selectFrom("polls").selectAll().where("post_id", "=", post.id).executeTakeFirst();
  if (!poll) throw notFound("This post has no poll");
  if ((choice.optionIds === undefined) === (choice.options === undefined))
    throw fieldError("optionIds", "give either optionIds or options");
  const field = choice.optionIds !== undefined ? "optionIds" : "options";
  const picked: Array<string | number> = (choice.optionIds ?? choice.options)!;
  if (picked.length === 0) throw fieldError(field, "must choose at least one option");
  if (new Set(picked).size !== picked.length) throw fieldError(field, "must not repeat an option");
  if (poll.multiple === 0 && picked.length > 1) throw fieldError(field, "this poll allows one choice");
  const options = await app.db
    .selectFrom("poll_options")
    .selectAll()
    .where("poll_id", "=", poll.id)
    .orderBy("position")
    .execute();
  const chosen = picked.map((p) =>
    typeof p === "number" ? options.find((o) => o.position === p) : options.find((o) => o.cuid === p),
  );
  if (chosen.some((o) => o === undefined)) throw fieldError(field, "names an option this poll does not have");
  const now = app.clock.now();
  await inTransaction(app.storage, async ({ db: tx }) => {
    // one vote per account, checked inside the write transaction: SQLite has one writer, and on
    // PostgreSQL this no-op update locks the poll's row, so a concurrent vote waits, then sees this one
    await tx
      .updateTable("polls")
      .set((eb) => ({ multiple: eb.ref("multiple") }))
      .where("id", "=", poll.id)
      .execute();
    const already = await tx
      .selectFrom("poll_votes")
      .select("id")
      .where("poll_id", "=", poll.id)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (already) throw new AppError(409, "ALREADY_VOTED", "You have already voted in this poll");
    await tx
      .insertInto("poll_votes")
      .values(chosen.map((o) => ({ poll_id: poll.id, option_id: o!.id, user_id: user.id, created_at: now })))
      .execute();
  });
  await notify(app, { recipientId: post.author_id, actorId: user.id, type: "poll", postId: post.id });
  return post;
}
