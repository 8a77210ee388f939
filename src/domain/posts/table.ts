import type { Generated, Selectable } from "kysely";
import type { Rendition } from "../../media/table";

export interface PostsTable {
  id: Generated<number>;
  cuid: string;
  author_id: number;
  content: Generated<string>;
  /** shown instead of the text and images until the reader asks (≤ 200 characters); null for none */
  content_warning: Generated<string | null>;
  /** JSON array of PostImage */
  images: Generated<string>;
  /** JSON LinkPreviewState (domain/links/preview.ts) of the text's first link; null when it has none */
  link_preview: Generated<string | null>;
  /** set on a repost: the original post (a repost has no content of its own) */
  repost_of_id: number | null;
  /** the author's idempotency key (≤ 64 chars), unique per author */
  client_post_id: string | null;
  created_at: number;
  edited_at: number | null;
  /** rows of post_likes and comments (replies included) of this post, kept by triggers (see the counters migration) */
  like_count: Generated<number>;
  comment_count: Generated<number>;
  /** posts reposting this one, kept by triggers (see the post_version migration) */
  repost_count: Generated<number>;
  /** one more on every change of the row, its counters included, or of its poll's presence (a trigger) */
  version: Generated<number>;
}

/** An attachment of a post as stored: the upload's address and what we know about it. */
export interface PostImage {
  url: string;
  kind: string;
  mime: string | null;
  width: number | null;
  height: number | null;
  thumbUrl: string | null;
  posterUrl: string | null;
  /** display renditions of an image, smallest first (absent on images that have none) */
  renditions?: Rendition[];
  /** the author's description of the image (absent when none was given) */
  alt?: string;
}

interface UserTargetTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
}

export type PostLikesTable = UserTargetTable & { post_id: number };
export type PostBookmarksTable = UserTargetTable & { post_id: number };

export interface PollsTable {
  id: Generated<number>;
  cuid: string;
  post_id: number;
  question: Generated<string>;
  multiple: Generated<number>;
}

export interface PollOptionsTable {
  id: Generated<number>;
  cuid: string;
  poll_id: number;
  position: number;
  text: string;
}

export interface PollVotesTable {
  id: Generated<number>;
  poll_id: number;
  option_id: number;
  user_id: number;
  created_at: number;
}

export interface HashtagsTable {
  id: Generated<number>;
  /** lower-cased, without # */
  tag: string;
  created_at: number;
  /** posts with the tag, kept by triggers on post_hashtags */
  post_count: Generated<number>;
}

export interface PostHashtagsTable {
  id: Generated<number>;
  post_id: number;
  hashtag_id: number;
  /** the post's created_at: a hashtag's page walks (hashtag_id, post_created_at, post_id) */
  post_created_at: number;
}

/**
 * The following feed kept on write: a row per (reader, post of an account the reader follows
 * and has not muted), kept by triggers (see the feed_entries migration).
 */
export interface FeedEntriesTable {
  owner_id: number;
  post_id: number;
  author_id: number;
  repost_of_id: number | null;
  created_at: number;
}

export type PostRow = Selectable<PostsTable>;
export type PollRow = Selectable<PollsTable>;
export type PollOptionRow = Selectable<PollOptionsTable>;

export interface PostsTables {
  posts: PostsTable;
  post_likes: PostLikesTable;
  post_bookmarks: PostBookmarksTable;
  polls: PollsTable;
  poll_options: PollOptionsTable;
  poll_votes: PollVotesTable;
  hashtags: HashtagsTable;
  post_hashtags: PostHashtagsTable;
  feed_entries: FeedEntriesTable;
}
