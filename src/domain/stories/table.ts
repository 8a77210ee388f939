import type { Generated, Selectable } from "kysely";

export const STORY_MEDIA_KINDS = ["story", "story-video", "story-voice"] as const;
export type StoryMediaKind = (typeof STORY_MEDIA_KINDS)[number];

export interface StoriesTable {
  id: Generated<number>;
  cuid: string;
  author_id: number;
  media_url: string;
  /** the upload kind: story (image), story-video, story-voice */
  media_kind: StoryMediaKind;
  thumb_url: string | null;
  /** an image story's size and display copies (JSON array of Rendition, smallest first), from its upload; null for other media */
  width: number | null;
  height: number | null;
  renditions: string | null;
  caption: Generated<string>;
  created_at: number;
  deleted_at: number | null;
}

export type StoryRow = Selectable<StoriesTable>;

export interface StoryViewsTable {
  id: Generated<number>;
  story_id: number;
  viewer_id: number;
  viewed_at: number;
}

export interface StoriesTables {
  stories: StoriesTable;
  story_views: StoryViewsTable;
}
