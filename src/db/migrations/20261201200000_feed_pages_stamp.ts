import { ACCOUNT_COLUMNS, stampMigration } from "./20261130100000_cache_stamps";

/**
 * The stamp `feed-pages` (src/cache/stamps.ts): raised by every write to a table a page of the
 * home feed is read from (its walk, the posts, their authors, polls and the reader's marks), but
 * an account's counters, which no post shows. The columns are the tables' as of this migration
 * (src/cache/registry.test.ts fails when a column added later is not watched, until a migration
 * extends the trigger).
 */
const CACHE = "feed-pages";

const TABLES: Record<string, readonly string[]> = {
  feed_entries: ["owner_id", "post_id", "author_id", "repost_of_id", "created_at"],
  blocks: ["id", "blocker_id", "blocked_id", "created_at"],
  mutes: ["id", "muter_id", "muted_id", "created_at"],
  posts: [
    "id",
    "cuid",
    "author_id",
    "content",
    "images",
    "repost_of_id",
    "client_post_id",
    "created_at",
    "edited_at",
    "like_count",
    "comment_count",
    "version",
    "repost_count",
    "content_warning",
    "link_preview",
  ],
  post_likes: ["id", "post_id", "user_id", "created_at"],
  post_bookmarks: ["id", "post_id", "user_id", "created_at"],
  users: [...ACCOUNT_COLUMNS, "language"],
  polls: ["id", "cuid", "post_id", "question", "multiple"],
  poll_options: ["id", "cuid", "poll_id", "position", "text"],
  poll_votes: ["id", "poll_id", "option_id", "user_id", "created_at"],
};

export const { up, down } = stampMigration(CACHE, TABLES);
