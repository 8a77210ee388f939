/** The viewer of one person's stories. */
export const storyViewerHref = (username: string, storyId?: string) =>
  `/stories/${encodeURIComponent(username)}${storyId ? `?story=${encodeURIComponent(storyId)}` : ""}`;
