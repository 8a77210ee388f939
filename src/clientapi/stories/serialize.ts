import type { StoryView } from "../../domain/stories/service";
import { STORY_TTL_MS } from "../../domain/stories/service";
import type { StoryMediaKind } from "../../domain/stories/table";
import type { UserRow } from "../../domain/users/table";
import { toIso } from "../../lib/clock";
import { renditionsOf } from "../../media/table";
import { renditionShape } from "../posts/serialize";
import { serializePublicUser } from "../serializers/account";

const MEDIA_TYPE: Record<StoryMediaKind, "image" | "video" | "voice"> = {
  story: "image",
  "story-video": "video",
  "story-voice": "voice",
};

/** A story as the Client API shows it; `viewsCount` only to its author. */
export function serializeStory(v: StoryView) {
  const s = v.row;
  return {
    id: s.cuid,
    author: serializePublicUser(v.author),
    mediaUrl: s.media_url,
    mediaType: MEDIA_TYPE[s.media_kind],
    thumbUrl: s.thumb_url,
    ...(s.media_kind === "story"
      ? { width: s.width, height: s.height, renditions: renditionsOf(s).map(renditionShape) }
      : {}),
    caption: s.caption,
    createdAt: toIso(s.created_at),
    expiresAt: toIso(s.created_at + STORY_TTL_MS),
    seen: v.seen,
    ...(v.viewsCount === null ? {} : { viewsCount: v.viewsCount }),
  };
}

/** One author's group in the stories feed. */
export function serializeStoryGroup(g: {
  author: UserRow;
  stories: StoryView[];
  hasUnseen: boolean;
  latestAt: number;
}) {
  return {
    author: serializePublicUser(g.author),
    stories: g.stories.map(serializeStory),
    hasUnseen: g.hasUnseen,
    latestAt: toIso(g.latestAt),
  };
}
