/**
 * Builds a large feed in minutes: AUTHORS accounts writing POSTS posts between them (newest
 * last, one a few seconds apart), and VIEWER following FOLLOWS of those authors. Rows go in
 * straight through bun:sqlite in large transactions (the domain's createPost costs a
 * statement round of its own per post, hours for a million); the full-text rows are left out
 * (the benchmark reads lists, not search). Statistics are refreshed at the end, since a
 * planner working from the empty database's statistics picks plans that cost orders of magnitude
 * more on the large one.
 *
 * Used by scripts/bench.ts (--posts above what createPost seeds quickly).
 */
import type { Database as SqliteDatabase } from "bun:sqlite";
import { newCuid } from "../src/lib/ids";

export interface SeedFeedOptions {
  posts: number;
  authors: number;
  /** the account whose follows are seeded */
  viewerId: number;
  follows: number;
  /** time of the newest post (ms) */
  now: number;
}

const ROWS_PER_TRANSACTION = 50_000;

/** Inserts ROWS rows through STATEMENT in transactions of ROWS_PER_TRANSACTION. */
export function insertInBatches(sqlite: SqliteDatabase, rows: number, insertRow: (i: number) => void): void {
  for (let start = 0; start < rows; start += ROWS_PER_TRANSACTION) {
    const end = Math.min(rows, start + ROWS_PER_TRANSACTION);
    sqlite.transaction(() => {
      for (let i = start; i < end; i++) insertRow(i);
    })();
  }
}

/** Seeds the authors, the viewer's follows and the posts; returns the authors' ids. */
export function seedLargeFeed(sqlite: SqliteDatabase, opts: SeedFeedOptions): number[] {
  // a post's insert runs the feed_entries trigger, so inside a transaction SQLite keeps a
  // statement journal for it: as a temporary file it makes the load several times slower
  // than in memory; the server's setting is restored at the end
  sqlite.exec("PRAGMA temp_store = MEMORY");
  try {
    return seedRows(sqlite, opts);
  } finally {
    sqlite.exec("PRAGMA temp_store = DEFAULT");
  }
}

function seedRows(sqlite: SqliteDatabase, opts: SeedFeedOptions): number[] {
  const run = Math.random().toString(36).slice(2, 7);
  const insertUser = sqlite.prepare(
    `INSERT INTO users (cuid, email, username, username_lower, display_name, created_at, updated_at)
     VALUES (?1, ?2, ?3, lower(?3), ?4, ?5, ?5) RETURNING id`,
  );
  const authorIds: number[] = [];
  insertInBatches(sqlite, opts.authors, (i) => {
    const username = `seed_${run}_${i}`;
    const row = insertUser.get(
      newCuid(),
      `${username}@example.test`,
      username,
      `Seed author ${i}`,
      opts.now - 1_000_000_000,
    ) as { id: number };
    authorIds.push(row.id);
  });

  const insertPost = sqlite.prepare("INSERT INTO posts (cuid, author_id, content, created_at) VALUES (?, ?, ?, ?)");
  const gapMs = 3_000;
  insertInBatches(sqlite, opts.posts, (i) => {
    // authors take turns in a scrambled order, as real posting does
    const author = authorIds[(i * 7919) % authorIds.length]!;
    insertPost.run(
      newCuid(),
      author,
      `Seed post ${i} with a #hashtag and a few words of text to render.`,
      opts.now - (opts.posts - i) * gapMs,
    );
  });
  // follows after the posts: each follow copies its followee's posts into feed_entries in one
  // statement (the feed_entries triggers), cheaper than a fan-out lookup per inserted post
  const insertFollow = sqlite.prepare("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)");
  // followed authors spread over the whole range, so their posts are spread over time too
  const step = Math.max(1, Math.floor(opts.authors / Math.max(1, opts.follows)));
  insertInBatches(sqlite, Math.min(opts.follows, opts.authors), (i) =>
    insertFollow.run(opts.viewerId, authorIds[i * step]!, opts.now),
  );
  sqlite.exec("ANALYZE");
  return authorIds;
}
