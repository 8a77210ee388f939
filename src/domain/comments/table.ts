import type { Generated, Selectable } from "kysely";
import type { Rendition } from "../../media/table";

export interface CommentsTable {
  id: Generated<number>;
  cuid: string;
  post_id: number;
  author_id: number;
  /** the comment this one answers (a thread); null for a top-level comment */
  reply_to_id: number | null;
  content: Generated<string>;
  /** shown instead of the text and media until the reader asks (≤ 200 characters); null for none */
  content_warning: Generated<string | null>;
  /** JSON array of CommentMedia */
  media: Generated<string>;
  created_at: number;
  /** comment_likes rows of this comment (kept by triggers: 20261124190000_comment_counters) */
  like_count: Generated<number>;
  /** comments answering this one directly, whoever wrote them (kept by triggers) */
  reply_count: Generated<number>;
  /** one more on every change of the row, its counters included (a trigger: 20261124215100_comment_version) */
  version: Generated<number>;
}

export interface CommentMedia {
  type: "image" | "video" | "voice";
  url: string;
  mime: string | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  thumbUrl: string | null;
  posterUrl: string | null;
  /** display renditions of an image, smallest first (absent on media that have none) */
  renditions?: Rendition[];
  /** the author's description of an image (absent when none was given) */
  alt?: string;
}

export interface CommentLikesTable {
  id: Generated<number>;
  comment_id: number;
  user_id: number;
  created_at: number;
}

/**
 * A comment thread's version: a post's top-level comments (parent_id 0) or one comment's direct
 * replies, one more on every change of what a page of it shows to a reader who hides nobody
 * (triggers: 20261125033000_comment_threads). No row: the thread never had a comment.
 */
export interface CommentThreadsTable {
  post_id: number;
  parent_id: number;
  version: number;
}

export type CommentRow = Selectable<CommentsTable>;

export interface CommentsTables {
  comments: CommentsTable;
  comment_likes: CommentLikesTable;
  comment_threads: CommentThreadsTable;
}
