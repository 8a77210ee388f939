import { defineService, type App } from "../../app";
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from "kysely";
import type { Database, Db } from "../../db";
import { compiledByIds, compiledForViewerByIds, ShapedQuery } from "../../db/compiled";
import { VersionedCache, cachedOrRead } from "../../cache/by-version";
import type { UserRow } from "../users/table";
import type { PostImage, PostRow } from "./table";

/** What a post view shows of its author: the public profile fields. */
export type PostAuthor = Pick<UserRow, "id" | "cuid" | "username" | "display_name" | "avatar_url" | "is_bot">;

/**
 * What every reader sees alike of a post at one version of its row: the row, its attachments,
 * its counters and whether it has a poll (the poll's counts and the reader's votes are read
 * apart). Kept by the App and shared between views: never changed once made.
 */
export interface PostCore {
  row: PostRow;
  images: PostImage[];
  likeCount: number;
  commentCount: number;
  repostCount: number;
  hasPoll: boolean;
}

/** A post with everything a reader sees: author, attachments, poll results, counters, own state. */
export interface PostView {
  row: PostRow;
  /** the viewer-independent part the view was made from (row, images and counters are its own) */
  core: PostCore;
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

/** Most post cores and authors kept per App (a post's core is ≈ 1 KB): the oldest kept goes first. */
const MAX_CACHED_POSTS = 5_000;
const MAX_CACHED_AUTHORS = 5_000;

/**
 * The App's kept post cores, by post id and posts.version, and post authors' shown columns, by
 * account id and users.profile_version: both versions are raised by triggers on every change,
 * whoever makes it (this process, the CLI, another node), so a kept value whose version a read
 * does not name is simply not used, and nothing has to be told of changes.
 */
export interface CachedPostViews {
  posts: VersionedCache<PostCore>;
  authors: VersionedCache<PostAuthor>;
}

const cachedPostViewsService = defineService("posts:kept-views", (): CachedPostViews => ({
  posts: new VersionedCache<PostCore>(MAX_CACHED_POSTS),
  authors: new VersionedCache<PostAuthor>(MAX_CACHED_AUTHORS),
}));

/** The post cores and authors APP keeps for its post views. */
export const cachedPostViewsOf = (app: App): CachedPostViews => app.services.get(cachedPostViewsService);

/** The columns of posts a page of post refs reads per post (a page's subquery selects them: see selectPostRefs). */
export const POST_REF_COLUMNS = [
  "posts.id",
  "posts.version",
  "posts.author_id",
  "posts.repost_of_id",
  "posts.created_at",
] as const;

/** The columns a page of post refs reads per post of its author (see selectPostRefs). */
export type PostRefAuthor = {
  a_version: number | bigint;
  a_deleted_at: number | null;
  a_disabled_at: number | null;
};

/**
 * What a page of post views reads per request, besides the kept parts: each post's id, version,
 * author and author's profile version and liveness, its place in a list (time, repost), and the
 * viewer's marks (left joins on unique indexes: at most one row each). List queries add their
 * WHERE/ORDER BY to this; the posts' and authors' columns are read only for those not kept.
 * PAGE, when given, is the page's posts as a subquery selecting POST_REF_COLUMNS and their
 * author's columns (PostRefAuthor), from the rows its walk already read as it checked each
 * author is live: neither the page's posts nor their authors are looked up again.
 */
export function selectPostRefs(
  db: Db,
  viewerId: number,
  page?: SelectQueryBuilder<
    Database,
    any,
    Pick<PostRow, "id" | "version" | "author_id" | "repost_of_id" | "created_at"> & {
      // a LEFT JOIN's types (the walk's author always exists)
      [K in keyof PostRefAuthor]: PostRefAuthor[K] | null;
    }
  >,
) {
  // the page as the outer loop (a subquery in FROM, named as the table it stands for) rather than
  // `posts.id IN (…)`: SQLite then neither probes the IN list's table per post nor sorts the rows again
  const from = (page ? db.selectFrom(page.as("posts")) : db.selectFrom("posts")) as ReturnType<
    typeof db.selectFrom<"posts">
  >;
  const withAuthors = from.innerJoin("users", "users.id", "posts.author_id");
  // typed as joined either way (callers filter on users' columns only when they give no page)
  return (page ? (from as unknown as typeof withAuthors) : withAuthors).select((eb) => [
    ...POST_REF_COLUMNS,
    sql.ref<PostRefAuthor["a_version"]>(page ? "posts.a_version" : "users.profile_version").as("a_version"),
    sql.ref<number | null>(page ? "posts.a_deleted_at" : "users.deleted_at").as("a_deleted_at"),
    sql.ref<number | null>(page ? "posts.a_disabled_at" : "users.disabled_at").as("a_disabled_at"),
    viewerMark(eb, viewerId, "post_likes").as("liked_id"),
    viewerMark(eb, viewerId, "post_bookmarks").as("bookmarked_id"),
    viewerMark(eb, viewerId, "reposts").as("reposted_id"),
  ]);
}

/** Where a viewer's mark of a post is kept: the mark's table, its post column and its account column. */
const MARKS = {
  post_likes: { table: "post_likes", post: "post_id", user: "user_id" },
  post_bookmarks: { table: "post_bookmarks", post: "post_id", user: "user_id" },
  // a repost is the viewer's post naming the original (one per account and original: posts_one_repost)
  reposts: { table: "posts", post: "repost_of_id", user: "author_id" },
} as const;

/**
 * The id of VIEWER's mark of KIND on the row's post (`posts.id`), or null. The post's own probe
 * runs only when its id lies between the lowest and the highest post the viewer ever marked so
 * (two index seeks per statement, on (account, post) indexes: see migration
 * 20261125042000_marks_by_account): a page's posts are mostly outside that range (newer than
 * anything the reader liked, and most readers never bookmark or repost), so a page of 20 reads
 * 6 index entries for the reader's marks instead of probing 60.
 */
function viewerMark(eb: ExpressionBuilder<any, any>, viewerId: number, kind: keyof typeof MARKS) {
  const e = eb as unknown as ExpressionBuilder<Database, "posts">;
  const { table, post, user } = MARKS[kind] as unknown as (typeof MARKS)["post_likes"];
  const marked = () =>
    e
      .selectFrom(`${table} as mk`)
      .where(`mk.${user}`, "=", viewerId)
      // reposts: the partial index posts_one_repost holds only posts that are reposts
      .$if(kind === "reposts", (q) => q.where(`mk.${post}`, "is not", null));
  return e
    .case()
    .when(
      e.between(
        "posts.id",
        marked().select((m) => m.fn.min<number>(`mk.${post}`).as("lo")),
        marked().select((m) => m.fn.max<number>(`mk.${post}`).as("hi")),
      ),
    )
    .then(
      e
        .selectFrom(`${table} as m`)
        .select("m.id")
        .whereRef(`m.${post}`, "=", "posts.id")
        .where(`m.${user}`, "=", viewerId),
    )
    .end();
}

/** One row of selectPostRefs. */
export type PostRef = Awaited<ReturnType<ReturnType<typeof selectPostRefs>["executeTakeFirstOrThrow"]>>;

/** The refs of posts by ids for a viewer, compiled once per id count. */
const refsOf = compiledForViewerByIds((db, viewer, ids) => selectPostRefs(db, viewer).where("posts.id", "in", ids));

// the columns of posts whose core is not kept, with their poll's presence
const postsByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("posts")
    .selectAll()
    .select((eb) =>
      eb.exists(eb.selectFrom("polls").select("polls.id").whereRef("polls.post_id", "=", "posts.id")).as("has_poll"),
    )
    .where("id", "in", ids),
);

// the shown columns of authors not kept
const authorsByIds = compiledByIds((db, ids) =>
  db
    .selectFrom("users")
    .select(["id", "cuid", "username", "display_name", "avatar_url", "is_bot", "profile_version"])
    .where("id", "in", ids),
);

/** The plain post row of a wider row (a view row, a row with access columns): the posts table's columns only. */
export function postRowOf(r: PostRow): PostRow {
  return {
    id: r.id,
    cuid: r.cuid,
    author_id: r.author_id,
    content: r.content,
    content_warning: r.content_warning,
    images: r.images,
    link_preview: r.link_preview,
    repost_of_id: r.repost_of_id,
    client_post_id: r.client_post_id,
    created_at: r.created_at,
    edited_at: r.edited_at,
    like_count: r.like_count,
    comment_count: r.comment_count,
    repost_count: r.repost_count,
    version: r.version,
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
 * The shown columns of the accounts WANTED (id → profile version): the ones KEPT holds at that
 * version as kept, the rest read in one statement (none when all are kept) and kept.
 */
function authorsOf(
  db: Db,
  kept: VersionedCache<PostAuthor>,
  wanted: ReadonlyMap<number, number>,
): Promise<Map<number, PostAuthor>> {
  return cachedOrRead(
    kept,
    wanted,
    (ids) => authorsByIds(db, ids),
    (u) => ({
      id: u.id,
      version: Number(u.profile_version),
      value: {
        id: u.id,
        cuid: u.cuid,
        username: u.username,
        display_name: u.display_name,
        avatar_url: u.avatar_url,
        is_bot: u.is_bot,
      },
    }),
  );
}

/** A ref of a kept view's row: its id and version, its author and the author's profile version. */
interface KeptRef {
  id: number;
  version: number | bigint;
  author_id: number;
  a_version: number | bigint;
}

/**
 * Cores (kept by row id and version) and authors (by account id and profile version) of REFS:
 * the kept ones as kept, the rest read (READ for cores, made by MAKE; one statement for cores,
 * one for authors, each only when something is missing) and kept. A ref whose row was deleted
 * since it was read has no core and is left out by the caller. Post and comment views share it.
 */
export async function coresAndAuthorsOf<Core, Row>(
  db: Db,
  kept: { cores: VersionedCache<Core>; authors: VersionedCache<PostAuthor> },
  refs: readonly KeptRef[],
  read: (ids: number[]) => Promise<Row[]>,
  make: (row: Row) => { id: number; version: number; value: Core },
): Promise<{ cores: Map<number, Core>; authors: Map<number, PostAuthor> }> {
  const wantedCores = new Map<number, number>();
  const wantedAuthors = new Map<number, number>();
  for (const r of refs) {
    wantedCores.set(r.id, Number(r.version));
    wantedAuthors.set(r.author_id, Number(r.a_version));
  }
  const cores = await cachedOrRead(kept.cores, wantedCores, read, make);
  return { cores, authors: await authorsOf(db, kept.authors, wantedAuthors) };
}

/** Cores and authors of post REFS (see coresAndAuthorsOf). */
const postCoresOf = (db: Db, kept: CachedPostViews, refs: PostRef[]) =>
  coresAndAuthorsOf(
    db,
    { cores: kept.posts, authors: kept.authors },
    refs,
    (ids) => postsByIds(db, ids),
    (p) => ({
      id: p.id,
      version: Number(p.version),
      value: {
        row: postRowOf(p),
        images: JSON.parse(p.images) as PostImage[],
        likeCount: Number(p.like_count),
        commentCount: Number(p.comment_count),
        repostCount: Number(p.repost_count),
        // SQLite answers 0/1, PostgreSQL false/true
        hasPoll: Number(p.has_poll) === 1,
      },
    }),
  );

/**
 * Views of REFS for VIEWER made from kept parts alone, now: when every ref is a post that is
 * not a repost, has no poll, and whose core and author KEPT holds at the versions the refs
 * name (most pages, most of the time); undefined otherwise (buildPostViews then reads what is
 * missing).
 */
export function cachedPostViewsNow(
  kept: CachedPostViews,
  viewerId: number,
  refs: readonly PostRef[],
): PostView[] | undefined {
  const views: PostView[] = [];
  for (const r of refs) {
    if (r.repost_of_id !== null) return undefined;
    const core = kept.posts.get(r.id, Number(r.version));
    if (core === undefined || core.hasPoll) return undefined;
    const author = kept.authors.get(r.author_id, Number(r.a_version));
    if (author === undefined) return undefined;
    views.push(postViewOf(r, core, author, null, viewerId));
  }
  return views;
}

/** The view of the post REF names for VIEWER, from its parts (repostOf is the caller's). */
function postViewOf(
  r: PostRef,
  core: PostView["core"],
  author: PostView["author"],
  poll: PostView["poll"],
  viewerId: number,
): PostView {
  return {
    row: core.row,
    core,
    author,
    images: core.images,
    poll,
    likeCount: core.likeCount,
    commentCount: core.commentCount,
    repostCount: core.repostCount,
    liked: r.liked_id !== null,
    bookmarked: r.bookmarked_id !== null,
    reposted: r.reposted_id !== null,
    own: r.author_id === viewerId,
    repostOf: null,
  };
}

/**
 * Builds views of REFS (from selectPostRefs) for VIEWER, in their order: reposts' originals'
 * refs are read in one more statement, polls in another, and posts and authors KEPT does not
 * hold in one each, each only when needed. HIDDEN author ids make a repost's original
 * invisible (repostOf null), as does a deleted or disabled original author.
 */
export async function buildPostViews(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  refs: PostRef[],
  hidden: ReadonlySet<number> = new Set(),
): Promise<PostView[]> {
  if (!refs.length) return [];
  const originalIds = new Set<number>();
  for (const r of refs) if (r.repost_of_id !== null) originalIds.add(r.repost_of_id);
  const originals = await refsOf(db, viewerId, originalIds);
  const all = originals.length ? [...refs, ...originals] : refs;
  const { cores, authors } = await postCoresOf(db, kept, all);
  const withPoll: number[] = [];
  for (const r of all) if (cores.get(r.id)?.hasPoll) withPoll.push(r.id);
  const polls = await loadPolls(db, viewerId, withPoll);
  const build = (r: PostRef): PostView | null => {
    const core = cores.get(r.id);
    const author = authors.get(r.author_id);
    if (!core || !author) return null;
    return postViewOf(r, core, author, polls.get(r.id) ?? null, viewerId);
  };
  const originalViews = new Map<number, PostView>();
  for (const o of originals) {
    const view = build(o);
    if (view && !hidden.has(o.author_id) && o.a_deleted_at === null && o.a_disabled_at === null)
      originalViews.set(o.id, view);
  }
  const views: PostView[] = [];
  for (const r of refs) {
    const view = build(r);
    if (!view) continue;
    if (r.repost_of_id !== null) view.repostOf = originalViews.get(r.repost_of_id) ?? null;
    views.push(view);
  }
  return views;
}

/**
 * Builds views of post ROWS for VIEWER in a fixed number of statements (no per-post round
 * trips), in the order given. HIDDEN author ids make a repost's original invisible.
 */
export async function loadPostViews(
  db: Db,
  kept: CachedPostViews,
  viewerId: number,
  rows: PostRow[],
  hidden: ReadonlySet<number> = new Set(),
): Promise<PostView[]> {
  if (!rows.length) return [];
  const found = await refsOf(
    db,
    viewerId,
    rows.map((r) => r.id),
  );
  const byId = new Map(found.map((r) => [r.id, r]));
  // a post deleted since ROWS were read is left out rather than shown half-built
  const ordered = rows.map((r) => byId.get(r.id)).filter((r): r is PostRef => r !== undefined);
  return buildPostViews(db, kept, viewerId, ordered, hidden);
}
