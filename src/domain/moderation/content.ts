import type { App } from "../../app";
import type { AdminAction } from "../admin/audit";
import { findCommentByCuid, removeComment } from "../comments/service";
import { findPostByCuid, removePost } from "../posts/service";
import { findLiveStoryByCuid, removeStory } from "../stories/service";

export type ContentKind = "post" | "comment" | "story";

/** A post, comment or story as moderation sees it, whoever wrote it and whoever they block. */
export interface ContentItem {
  kind: ContentKind;
  rowId: number;
  id: string;
  authorId: number;
  text: string;
  /** JSON array of the item's media references */
  media: string;
  createdAt: number;
}

const finders: Record<ContentKind, (app: App, id: string) => Promise<ContentItem | undefined>> = {
  post: async (app, id) => {
    const p = await findPostByCuid(app.db, id);
    return (
      p && {
        kind: "post",
        rowId: p.id,
        id: p.cuid,
        authorId: p.author_id,
        text: p.content,
        media: p.images,
        createdAt: p.created_at,
      }
    );
  },
  comment: async (app, id) => {
    const c = await findCommentByCuid(app.db, id);
    return (
      c && {
        kind: "comment",
        rowId: c.id,
        id: c.cuid,
        authorId: c.author_id,
        text: c.content,
        media: c.media,
        createdAt: c.created_at,
      }
    );
  },
  story: async (app, id) => {
    const s = await findLiveStoryByCuid(app.db, app.clock.now(), id);
    return (
      s && {
        kind: "story",
        rowId: s.id,
        id: s.cuid,
        authorId: s.author_id,
        text: s.caption,
        media: JSON.stringify([{ url: s.media_url, kind: s.media_kind }]),
        createdAt: s.created_at,
      }
    );
  },
};

const removers: Record<ContentKind, (app: App, item: ContentItem) => Promise<void>> = {
  post: async (app, item) => {
    const post = await findPostByCuid(app.db, item.id);
    if (post) await removePost(app, post);
  },
  comment: (app, item) => removeComment(app, item.rowId),
  story: (app, item) => removeStory(app.db, app.clock.now(), item.rowId),
};

/** Any post, comment or story by public id (undefined when there is none, or a story expired). */
export const findContent = (app: App, kind: ContentKind, id: string) => finders[kind](app, id);

/** Removes ITEM for everyone, as an administrator does. */
export const removeContent = (app: App, item: ContentItem) => removers[item.kind](app, item);

/** The first words of TEXT, for the audit log's target label. */
export const excerpt = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/** The audit entry of ITEM's removal (AUTHOR: its author's username, if the account is still there). */
export const removalAuditEntry = (item: ContentItem, author: string | null): AdminAction => ({
  action: `${item.kind}.remove`,
  target: { type: item.kind, id: item.id, label: `@${author ?? "?"}: ${excerpt(item.text)}` },
  details: { author },
});
