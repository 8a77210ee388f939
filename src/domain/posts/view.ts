import type { Db } from "../../db";
import type { UserRow } from "../users/table";
import type { PostImage, PostRow } from "./table";

/** A post with everything a reader sees: author, attachments, poll results, counters, own state. */
export interface PostView {
  row: PostRow;
  author: UserRow;
  images: PostImage[];
  poll: PollView | null;
  likeCount: number;
  commentCount: number;
  repostCount: number;
  liked: boolean;
  bookmarked: boolean;
  reposted: boolean;
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
  /** option cuids the viewer chose */
  myVotes: string[];
}

const countBy = async (db: Db, table: "post_likes" | "comments", ids: number[]) => {
  if (!ids.length) return new Map<number, number>();
  const rows = await db
    .selectFrom(table)
    .select(["post_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("post_id", "in", ids)
    .groupBy("post_id")
    .execute();
  return new Map(rows.map((r) => [r.post_id, Number(r.n)]));
};

const idSet = async (db: Db, table: "post_likes" | "post_bookmarks", viewerId: number, ids: number[]) => {
  if (!ids.length) return new Set<number>();
  const rows = await db.selectFrom(table).select("post_id").where("user_id", "=", viewerId).where("post_id", "in", ids).execute();
  return new Set(rows.map((r) => r.post_id));
};

/** Loads the polls of POST IDS with counts and the viewer's choices, keyed by post id. */
export async function loadPolls(db: Db, viewerId: number, postIds: number[]): Promise<Map<number, PollView>> {
  const out = new Map<number, PollView>();
  if (!postIds.length) return out;
  const polls = await db.selectFrom("polls").selectAll().where("post_id", "in", postIds).execute();
  if (!polls.length) return out;
  const pollIds = polls.map((p) => p.id);
  const [options, counts, voters, mine] = await Promise.all([
    db.selectFrom("poll_options").selectAll().where("poll_id", "in", pollIds).orderBy("position").execute(),
    db.selectFrom("poll_votes").select(["option_id", (eb) => eb.fn.countAll<number>().as("n")]).where("poll_id", "in", pollIds).groupBy("option_id").execute(),
    db
      .selectFrom("poll_votes")
      .select(["poll_id", (eb) => eb.fn.count<number>("user_id").distinct().as("n")])
      .where("poll_id", "in", pollIds)
      .groupBy("poll_id")
      .execute(),
    db.selectFrom("poll_votes").select(["poll_id", "option_id"]).where("poll_id", "in", pollIds).where("user_id", "=", viewerId).execute(),
  ]);
  const votes = new Map(counts.map((c) => [c.option_id, Number(c.n)]));
  const voterCount = new Map(voters.map((v) => [v.poll_id, Number(v.n)]));
  const optionCuid = new Map(options.map((o) => [o.id, o.cuid]));
  for (const poll of polls) {
    out.set(poll.post_id, {
      cuid: poll.cuid,
      question: poll.question,
      multiple: poll.multiple === 1,
      options: options.filter((o) => o.poll_id === poll.id).map((o) => ({ cuid: o.cuid, position: o.position, text: o.text, votes: votes.get(o.id) ?? 0 })),
      voterCount: voterCount.get(poll.id) ?? 0,
      myVotes: mine.filter((m) => m.poll_id === poll.id).map((m) => optionCuid.get(m.option_id)!),
    });
  }
  return out;
}

/**
 * Builds views of ROWS for VIEWER in a fixed number of queries (no per-post round trips).
 * HIDDEN author ids make a repost's original invisible (repostOf null).
 */
export async function loadPostViews(db: Db, viewerId: number, rows: PostRow[], hidden: ReadonlySet<number> = new Set()): Promise<PostView[]> {
  if (!rows.length) return [];
  const originalIds = [...new Set(rows.map((r) => r.repost_of_id).filter((id): id is number => id !== null))];
  const originals = originalIds.length ? await db.selectFrom("posts").selectAll().where("id", "in", originalIds).execute() : [];
  const all = [...rows, ...originals];
  const ids = [...new Set(all.map((r) => r.id))];
  const authorIds = [...new Set(all.map((r) => r.author_id))];
  const [authors, likes, comments, reposts, liked, bookmarked, reposted, polls] = await Promise.all([
    db.selectFrom("users").selectAll().where("id", "in", authorIds).execute(),
    countBy(db, "post_likes", ids),
    countBy(db, "comments", ids),
    db
      .selectFrom("posts")
      .select(["repost_of_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("repost_of_id", "in", ids)
      .groupBy("repost_of_id")
      .execute(),
    idSet(db, "post_likes", viewerId, ids),
    idSet(db, "post_bookmarks", viewerId, ids),
    db.selectFrom("posts").select("repost_of_id").where("author_id", "=", viewerId).where("repost_of_id", "in", ids).execute(),
    loadPolls(db, viewerId, ids),
  ]);
  const authorById = new Map(authors.map((a) => [a.id, a]));
  const repostCount = new Map(reposts.map((r) => [r.repost_of_id!, Number(r.n)]));
  const repostedSet = new Set(reposted.map((r) => r.repost_of_id!));
  const build = (row: PostRow): PostView => ({
    row,
    author: authorById.get(row.author_id)!,
    images: JSON.parse(row.images) as PostImage[],
    poll: polls.get(row.id) ?? null,
    likeCount: likes.get(row.id) ?? 0,
    commentCount: comments.get(row.id) ?? 0,
    repostCount: repostCount.get(row.id) ?? 0,
    liked: liked.has(row.id),
    bookmarked: bookmarked.has(row.id),
    reposted: repostedSet.has(row.id),
    repostOf: null,
  });
  const originalViews = new Map(originals.map((o) => [o.id, build(o)]));
  return rows.map((row) => {
    const view = build(row);
    if (row.repost_of_id !== null) {
      const original = originalViews.get(row.repost_of_id);
      if (original && !hidden.has(original.row.author_id) && original.author.deleted_at === null && original.author.disabled_at === null) view.repostOf = original;
    }
    return view;
  });
}
