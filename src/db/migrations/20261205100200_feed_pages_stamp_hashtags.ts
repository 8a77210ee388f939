import type { Kysely } from "kysely";
import { createStampTriggers, dropStampTriggers } from "./20261130100000_cache_stamps";

/**
 * The stamp `feed-pages` also keeps a hashtag's posts (src/clientapi/posts/feed-answers.ts): it
 * is raised by every write to the hashtags and their posts' rows too, but a hashtag's post
 * count, which its page does not show. The columns are the tables' as of this migration.
 */
const CACHE = "feed-pages";

const TABLES: Record<string, readonly string[]> = {
  hashtags: ["id", "tag", "created_at"],
  post_hashtags: ["id", "post_id", "hashtag_id", "post_created_at"],
};

export const up = (db: Kysely<any>) => createStampTriggers(db, CACHE, TABLES);
export const down = (db: Kysely<any>) => dropStampTriggers(db, CACHE, Object.keys(TABLES));
