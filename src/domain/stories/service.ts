import type { App } from "../../app";
import type { Db } from "../../db";
import { forbidden, notFound, validationError, type FieldErrors } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { blockedEitherWayIds, followerIds, hiddenAuthorIds, isBlockedEitherWay } from "../relations/service";
import type { UserRow } from "../users/table";
import { collectFieldErrors } from "../profiles/field-errors";
import { STORY_MEDIA_KINDS, type StoryRow } from "./table";
import { beforeKey } from "../posts/keyset";
import { pick } from "../../lib/objects";

/** Stories are visible this long after creation; every query filters by created_at. */
export const STORY_TTL_MS = 24 * 3_600_000;
export const CAPTION_MAX = 200;
/** Upper bound of stories read for one stories feed (followed authors × live stories). */
const FEED_MAX_STORIES = 1000;

/** Stories that have not expired nor been deleted at NOW. */
const live = (db: Db, now: number) =>
  db
    .selectFrom("stories")
    .where("stories.deleted_at", "is", null)
    .where("stories.created_at", ">", now - STORY_TTL_MS);

/** Publishes a story from one of the author's story uploads; followers get 'story:new'. */
export async function createStory(
  app: App,
  author: UserRow,
  input: { mediaUrl: string; caption?: string },
): Promise<StoryRow> {
  const caption = (input.caption ?? "").trim();
  const errors: FieldErrors = {};
  if ([...caption].length > CAPTION_MAX) errors.caption = [`must be at most ${CAPTION_MAX} characters`];
  const upload = await collectFieldErrors(errors, () =>
    resolveOwnUpload(app, input.mediaUrl, author.id, [...STORY_MEDIA_KINDS], "mediaUrl"),
  );
  if (!upload || Object.keys(errors).length) throw validationError(errors);
  const now = app.clock.now();
  const story = await app.db
    .insertInto("stories")
    .values({
      cuid: newCuid(),
      author_id: author.id,
      media_url: upload.url,
      media_kind: upload.kind as StoryRow["media_kind"],
      thumb_url: upload.thumb_url ?? upload.poster_url,
      width: upload.width,
      height: upload.height,
      renditions: upload.renditions,
      caption,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await markAttached(app.db, upload.id, now);
  const followers = await followerIds(app.db, author.id);
  app.hooks.publish({
    type: "story:posted",
    to: followers,
    story: pick(story, "id", "cuid"),
    author: pick(author, "id", "cuid", "username"),
  });
  return story;
}

/** A live story VIEWER may see (not expired, not deleted, no block either way), else NOT_FOUND. */
export async function requireVisibleStory(db: Db, now: number, viewerId: number, cuid: string): Promise<StoryRow> {
  const story = await live(db, now)
    .innerJoin("users", "users.id", "stories.author_id")
    .selectAll("stories")
    .where("stories.cuid", "=", cuid)
    .where("users.deleted_at", "is", null)
    .executeTakeFirst();
  if (!story || (story.author_id !== viewerId && (await isBlockedEitherWay(db, viewerId, story.author_id))))
    throw notFound("Story not found");
  return story;
}

/** Marks a story seen by VIEWER (the author's own views are not recorded). */
export async function markStoryViewed(db: Db, now: number, viewerId: number, story: StoryRow): Promise<void> {
  if (story.author_id === viewerId) return;
  await db
    .insertInto("story_views")
    .values({ story_id: story.id, viewer_id: viewerId, viewed_at: now })
    .onConflict((oc) => oc.columns(["story_id", "viewer_id"]).doNothing())
    .execute();
}

/** Deletes the author's own story; someone else's visible story is FORBIDDEN. */
export async function deleteStory(db: Db, now: number, userId: number, story: StoryRow): Promise<void> {
  if (story.author_id !== userId) throw forbidden("Only the author can delete a story");
  await removeStory(db, now, story.id);
}

/** Takes a story down (its author or an administrator); its media goes with the stories cleanup. */
export async function removeStory(db: Db, now: number, storyId: number): Promise<void> {
  await db
    .updateTable("stories")
    .set({ deleted_at: now })
    .where("id", "=", storyId)
    .where("deleted_at", "is", null)
    .execute();
}

/** A live story by public id, whoever wrote it (moderation looks past blocks). */
export const findLiveStoryByCuid = (db: Db, now: number, cuid: string) =>
  live(db, now).selectAll().where("stories.cuid", "=", cuid).executeTakeFirst();

/** One page of a story's viewers, latest first; only the author may ask (others NOT_FOUND). */
export async function listStoryViewers(
  db: Db,
  userId: number,
  story: StoryRow,
  opts: { cursor: Cursor | null; limit: number },
) {
  if (story.author_id !== userId) throw notFound("Story not found");
  const hidden = await blockedEitherWayIds(db, userId);
  let q = db
    .selectFrom("story_views")
    .innerJoin("users", "users.id", "story_views.viewer_id")
    .selectAll("users")
    .select(["story_views.id as view_id", "story_views.viewed_at as viewed_at"])
    .where("story_views.story_id", "=", story.id)
    .where("users.deleted_at", "is", null);
  if (hidden.length) q = q.where("users.id", "not in", hidden);
  if (opts.cursor) q = q.where(beforeKey("story_views.viewed_at", "story_views.id", opts.cursor));
  const rows = await q
    .orderBy("story_views.viewed_at", "desc")
    .orderBy("story_views.id", "desc")
    .limit(opts.limit + 1)
    .execute();
  const page = pageOf(rows, opts.limit, (r) => ({ t: r.viewed_at, id: r.view_id }));
  return {
    viewers: page.items.map((r) => ({ user: r as UserRow, viewedAt: r.viewed_at })),
    nextCursor: page.nextCursor,
  };
}

/** A story as VIEWER sees it: its author, whether the viewer saw it, and (for the author only) its view count. */
export interface StoryView {
  row: StoryRow;
  author: UserRow;
  /** the author has seen their own stories */
  seen: boolean;
  viewsCount: number | null;
}

/** Builds views of STORIES for VIEWER in a fixed number of queries. */
export async function loadStoryViews(db: Db, viewerId: number, stories: StoryRow[]): Promise<StoryView[]> {
  if (stories.length === 0) return [];
  const ids = stories.map((s) => s.id);
  const authorIds = [...new Set(stories.map((s) => s.author_id))];
  const ownIds = stories.filter((s) => s.author_id === viewerId).map((s) => s.id);
  const [authors, seenRows, counts] = await Promise.all([
    db.selectFrom("users").selectAll().where("id", "in", authorIds).execute(),
    db
      .selectFrom("story_views")
      .select("story_id")
      .where("viewer_id", "=", viewerId)
      .where("story_id", "in", ids)
      .execute(),
    ownIds.length
      ? db
          .selectFrom("story_views")
          .select(["story_id", (eb) => eb.fn.countAll<number>().as("n")])
          .where("story_id", "in", ownIds)
          .groupBy("story_id")
          .execute()
      : [],
  ]);
  const authorById = new Map(authors.map((u) => [u.id, u]));
  const seen = new Set(seenRows.map((r) => r.story_id));
  const viewCount = new Map(counts.map((r) => [r.story_id, Number(r.n)]));
  return stories.map((row) => {
    const own = row.author_id === viewerId;
    return {
      row,
      author: authorById.get(row.author_id)!,
      seen: own || seen.has(row.id),
      viewsCount: own ? (viewCount.get(row.id) ?? 0) : null,
    };
  });
}

/** AUTHOR's live stories, oldest first, as VIEWER sees them (none across a block). */
export async function userStories(db: Db, now: number, viewerId: number, authorId: number) {
  if (viewerId !== authorId && (await isBlockedEitherWay(db, viewerId, authorId))) return [];
  const rows = await live(db, now)
    .selectAll("stories")
    .where("stories.author_id", "=", authorId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
  return loadStoryViews(db, viewerId, rows);
}

/**
 * The stories feed: live stories of the accounts VIEWER follows (blocked and muted accounts
 * left out), grouped by author. Groups with unseen stories come first, then by latest story.
 */
export async function storiesFeed(db: Db, now: number, viewerId: number) {
  const hidden = await hiddenAuthorIds(db, viewerId);
  let q = live(db, now)
    .innerJoin("follows", (j) =>
      j.onRef("follows.followee_id", "=", "stories.author_id").on("follows.follower_id", "=", viewerId),
    )
    .innerJoin("users", "users.id", "stories.author_id")
    .selectAll("stories")
    .where("users.deleted_at", "is", null);
  if (hidden.length) q = q.where("stories.author_id", "not in", hidden);
  const rows = await q
    .orderBy("stories.created_at", "desc")
    .orderBy("stories.id", "desc")
    .limit(FEED_MAX_STORIES)
    .execute();
  const views = await loadStoryViews(db, viewerId, rows.reverse());
  const groups = new Map<number, { author: UserRow; stories: StoryView[]; hasUnseen: boolean; latestAt: number }>();
  for (const story of views) {
    let g = groups.get(story.author.id);
    if (!g)
      groups.set(
        story.author.id,
        (g = { author: story.author, stories: [], hasUnseen: false, latestAt: story.row.created_at }),
      );
    g.stories.push(story);
    g.hasUnseen ||= !story.seen;
    g.latestAt = Math.max(g.latestAt, story.row.created_at);
  }
  return [...groups.values()].sort((a, b) => Number(b.hasUnseen) - Number(a.hasUnseen) || b.latestAt - a.latestAt);
}
