import type { Db } from "../../db";
import type { UserRow } from "../users/table";
import type { PostImage, PostRow } from "./table";

/** What a post view shows of its author (the public profile fields and the liveness flags). */
export type PostAuthor = Pick<
  UserRow,
  "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot" | "deleted_at" | "disabled_at"
>;

/** A post with everything a reader sees: author, attachments, poll results, counters, own state. */
export interface PostView {
  row: PostRow;
  author: PostAuthor;
  images: PostImage[];
  poll: PollView | null;
  likeCount: number;
  commentCount: number;
  repostCount: number;
  liked: boolean;
  bookmarked: boolean;
  reposted: boolean;
  /** the viewer wrote it (only the author sees its clientPostId) */
  own: boolean;
  /** the original of a repost (null when it is no longer visible) */
  repostOf: PostView | null;
}

export interface PollView {
  cuid: string;
  question: string;
  multiple: boolean;
  options: Array<{ cuid: string; position: number; text: string; votes: number }>;
  /** accounts that voted */
  voterCount: number;
  /** option cuids the viewer chose, in the order they were chosen */
  myVotes: string[];
}

/**
 * Posts joined with their authors, selecting in the same statement everything a view needs:
 * author columns, counters (likes and comments are columns kept on write; reposts a correlated
 * subquery, an index lookup),
 * the viewer's own marks and whether a poll is attached (left joins). List queries add their
 * WHERE/ORDER BY to this, so a page of views costs one statement (plus one for reposts'
 * originals and one for polls, only when the page has them).
 */
export function selectPostViews(db: Db, viewerId: number) {
  return (
    db
      .selectFrom("posts")
      .innerJoin("users", "users.id", "posts.author_id")
      // the viewer's marks and the poll: at most one row each (unique indexes), cheaper as joins than as subqueries
      .leftJoin("post_likes as ml", (j) => j.onRef("ml.post_id", "=", "posts.id").on("ml.user_id", "=", viewerId))
      .leftJoin("post_bookmarks as mb", (j) => j.onRef("mb.post_id", "=", "posts.id").on("mb.user_id", "=", viewerId))
      .leftJoin("posts as mr", (j) => j.onRef("mr.repost_of_id", "=", "posts.id").on("mr.author_id", "=", viewerId))
      .leftJoin("polls as hp", "hp.post_id", "posts.id")
      .selectAll("posts")
      .select((eb) => [
        "users.cuid as a_cuid",
        "users.username as a_username",
        "users.display_name as a_display_name",
        "users.avatar_url as a_avatar_url",
        "users.is_bot as a_is_bot",
        "users.deleted_at as a_deleted_at",
        "users.disabled_at as a_disabled_at",
        "ml.id as liked_id",
        "mb.id as bookmarked_id",
        "mr.id as reposted_id",
        "hp.id as poll_id",
        eb
          .selectFrom("posts as r")
          .select(eb.fn.countAll<number>().as("n"))
          .whereRef("r.repost_of_id", "=", "posts.id")
          .as("repost_count"),
      ])
  );
}

/** One row of selectPostViews. */
export type PostViewRow = Awaited<ReturnType<ReturnType<typeof selectPostViews>["executeTakeFirstOrThrow"]>>;

/** The plain post row of a wider row (a view row, a row with access columns): the posts table's columns only. */
export function postRowOf(r: PostRow): PostRow {
  return {
    id: r.id,
    cuid: r.cuid,
    author_id: r.author_id,
    content: r.content,
    images: r.images,
    repost_of_id: r.repost_of_id,
    client_post_id: r.client_post_id,
    created_at: r.created_at,
    edited_at: r.edited_at,
    like_count: r.like_count,
    comment_count: r.comment_count,
  };
}

/**
 * Loads the polls of POST IDS with counts and the viewer's choices, keyed by post id, in one
 * statement: one row per option, with its vote count, the poll's voter count and the id of the
 * viewer's vote for it (vote ids keep the order the viewer chose them in).
 */
export async function loadPolls(db: Db, viewerId: number, postIds: number[]): Promise<Map<number, PollView>> {
  const out = new Map<number, PollView>();
  if (!postIds.length) return out;
  const rows = await db
    .selectFrom("polls as p")
    .innerJoin("poll_options as o", "o.poll_id", "p.id")
    .select((eb) => [
      "p.post_id",
      "p.cuid as poll_cuid",
      "p.question",
      "p.multiple",
      "o.cuid",
      "o.position",
      "o.text",
      eb
        .selectFrom("poll_votes as v")
        .select((v) => v.fn.count<number>("v.user_id").distinct().as("n"))
        .whereRef("v.poll_id", "=", "p.id")
        .as("voter_count"),
      eb
        .selectFrom("poll_votes as v")
        .select(eb.fn.countAll<number>().as("n"))
        .whereRef("v.option_id", "=", "o.id")
        .as("votes"),
      eb
        .selectFrom("poll_votes as v")
        .select((v) => v.fn.min<number>("v.id").as("n"))
        .whereRef("v.option_id", "=", "o.id")
        .where("v.user_id", "=", viewerId)
        .as("my_vote"),
    ])
    .where("p.post_id", "in", postIds)
    .orderBy("p.id")
    .orderBy("o.position")
    .execute();
  const mine = new Map<number, Array<{ cuid: string; voteId: number }>>();
  for (const r of rows) {
    let poll = out.get(r.post_id);
    if (!poll) {
      poll = {
        cuid: r.poll_cuid,
        question: r.question,
        multiple: r.multiple === 1,
        options: [],
        voterCount: Number(r.voter_count ?? 0),
        myVotes: [],
      };
      out.set(r.post_id, poll);
      mine.set(r.post_id, []);
    }
    poll.options.push({ cuid: r.cuid, position: r.position, text: r.text, votes: Number(r.votes ?? 0) });
    if (r.my_vote !== null) mine.get(r.post_id)!.push({ cuid: r.cuid, voteId: Number(r.my_vote) });
  }
  for (const [postId, votes] of mine)
    out.get(postId)!.myVotes = votes.sort((a, b) => a.voteId - b.voteId).map((v) => v.cuid);
  return out;
}

/**
 * Builds views of view ROWS (from selectPostViews) for VIEWER: reposts' originals are loaded
 * in one more statement and polls in another, each only when the rows need them. HIDDEN
 * author ids make a repost's original invisible (repostOf null).
 */
export async function buildPostViews(
  db: Db,
  viewerId: number,
  rows: PostViewRow[],
  hidden: ReadonlySet<number> = new Set(),
): Promise<PostView[]> {
  if (!rows.length) return [];
  const originalIds = [...new Set(rows.map((r) => r.repost_of_id).filter((id): id is number => id !== null))];
  const originals = originalIds.length
    ? await selectPostViews(db, viewerId).where("posts.id", "in", originalIds).execute()
    : [];
  const withPoll = [...rows, ...originals].filter((r) => r.poll_id !== null).map((r) => r.id);
  const polls = await loadPolls(db, viewerId, withPoll);
  const build = (r: PostViewRow): PostView => ({
    row: postRowOf(r),
    author: {
      id: r.author_id,
      cuid: r.a_cuid,
      username: r.a_username,
      display_name: r.a_display_name,
      avatar_url: r.a_avatar_url,
      is_bot: r.a_is_bot,
      deleted_at: r.a_deleted_at,
      disabled_at: r.a_disabled_at,
    },
    images: JSON.parse(r.images) as PostImage[],
    poll: polls.get(r.id) ?? null,
    likeCount: Number(r.like_count ?? 0),
    commentCount: Number(r.comment_count ?? 0),
    repostCount: Number(r.repost_count ?? 0),
    liked: r.liked_id !== null,
    bookmarked: r.bookmarked_id !== null,
    reposted: r.reposted_id !== null,
    own: r.author_id === viewerId,
    repostOf: null,
  });
  const originalViews = new Map(originals.map((o) => [o.id, build(o)]));
  return rows.map((r) => {
    const view = build(r);
    if (r.repost_of_id !== null) {
      const original = originalViews.get(r.repost_of_id);
      if (
        original &&
        !hidden.has(original.row.author_id) &&
        original.author.deleted_at === null &&
        original.author.disabled_at === null
      )
        view.repostOf = original;
    }
    return view;
  });
}

/**
 * Builds views of post ROWS for VIEWER in a fixed number of statements (no per-post round
 * trips), in the order given. HIDDEN author ids make a repost's original invisible.
 */
export async function loadPostViews(
  db: Db,
  viewerId: number,
  rows: PostRow[],
  hidden: ReadonlySet<number> = new Set(),
): Promise<PostView[]> {
  if (!rows.length) return [];
  const found = await selectPostViews(db, viewerId)
    .where(
      "posts.id",
      "in",
      rows.map((r) => r.id),
    )
    .execute();
  const byId = new Map(found.map((r) => [r.id, r]));
  // a post deleted since ROWS were read is left out rather than shown half-built
  const ordered = rows.map((r) => byId.get(r.id)).filter((r): r is PostViewRow => r !== undefined);
  return buildPostViews(db, viewerId, ordered, hidden);
}
