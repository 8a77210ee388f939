import type { PublicUser, Rendition } from "./types";

/** A story as the Client API shows it; `viewsCount` only on one's own. */
export interface Story {
  id: string;
  author: PublicUser;
  mediaUrl: string;
  mediaType: "image" | "video" | "voice";
  thumbUrl: string | null;
  /** an image story's size and display copies (absent for video and voice) */
  width?: number | null;
  height?: number | null;
  renditions?: Rendition[];
  caption: string | null;
  createdAt: string;
  expiresAt: string;
  seen: boolean;
  viewsCount?: number;
}

/** One followed account's stories of the last day (GET /api/social/stories). */
export interface StoryGroup {
  author: PublicUser;
  stories: Story[];
  hasUnseen: boolean;
  latestAt: string;
}

/** The viewer of one person's stories. */
export const storyViewerHref = (username: string, storyId?: string) =>
  `/stories/${encodeURIComponent(username)}${storyId ? `?story=${encodeURIComponent(storyId)}` : ""}`;
