import { doc, Open } from "../docs";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { findCommentByCuid, removeComment } from "../../domain/comments/service";
import { findPostByCuid, removePost } from "../../domain/posts/service";
import { findLiveStoryByCuid, removeStory } from "../../domain/stories/service";
import type { AuditTargetType } from "../../domain/admin/table";
import type { UserRow } from "../../domain/users/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { adminContext, logged } from "./guard";

const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** A piece of content as the admin area previews it before removal. */
interface ContentItem {
  kind: "post" | "comment" | "story";
  rowId: number;
  id: string;
  authorId: number;
  text: string;
  createdAt: number;
}

/** The first words of TEXT, for the audit log's target label. */
const excerpt = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/**
 * /api/admin/content: look up and remove any post, comment or story by its id, whoever wrote
 * it and whoever they block. The blocked-words list is the live setting moderation.blockedWords
 * (/api/admin/settings).
 */
export function adminContentRoutes(app: App) {
  const finders: Record<ContentItem["kind"], (id: string) => Promise<ContentItem | undefined>> = {
    post: async (id) => {
      const p = await findPostByCuid(app.db, id);
      return (
        p && { kind: "post", rowId: p.id, id: p.cuid, authorId: p.author_id, text: p.content, createdAt: p.created_at }
      );
    },
    comment: async (id) => {
      const c = await findCommentByCuid(app.db, id);
      return (
        c && {
          kind: "comment",
          rowId: c.id,
          id: c.cuid,
          authorId: c.author_id,
          text: c.content,
          createdAt: c.created_at,
        }
      );
    },
    story: async (id) => {
      const s = await findLiveStoryByCuid(app.db, app.clock.now(), id);
      return (
        s && { kind: "story", rowId: s.id, id: s.cuid, authorId: s.author_id, text: s.caption, createdAt: s.created_at }
      );
    },
  };
  const removers: Record<ContentItem["kind"], (item: ContentItem) => Promise<void>> = {
    post: async (item) => removePost(app, (await findPostByCuid(app.db, item.id))!),
    comment: (item) => removeComment(app, item.rowId),
    story: (item) => removeStory(app.db, app.clock.now(), item.rowId),
  };

  const find = async (kind: ContentItem["kind"], id: string) => {
    const item = await finders[kind](id);
    if (!item) throw notFound(`${kind[0]!.toUpperCase()}${kind.slice(1)} not found`);
    const author = await app.db
      .selectFrom("users")
      .select(["cuid", "username"])
      .where("id", "=", item.authorId)
      .executeTakeFirst();
    return { item, author: { id: author?.cuid ?? null, username: author?.username ?? null } };
  };
  const show = ({ item, author }: Awaited<ReturnType<typeof find>>) => ({
    kind: item.kind,
    id: item.id,
    text: item.text,
    author,
    createdAt: toIso(item.createdAt),
  });

  const preview =
    (kind: ContentItem["kind"]) =>
    async ({ params }: { params: { id: string } }) =>
      ok({ content: show(await find(kind, params.id)) });
  const remove =
    (kind: ContentItem["kind"]) =>
    async ({ admin, params }: { admin: UserRow; params: { id: string } }) => {
      const found = await find(kind, params.id);
      const entry = {
        action: `${kind}.remove`,
        target: {
          type: kind as AuditTargetType,
          id: found.item.id,
          label: `@${found.author.username ?? "?"}: ${excerpt(found.item.text)}`,
        },
        details: { author: found.author.username },
      };
      await logged(app, admin, [entry], () => removers[kind](found.item));
      return ok({ removed: show(found) });
    };
  const opts = { admin: true, params: IdParams } as const;

  return new Elysia({ name: "admin-content" })
    .use(adminContext(app))
    .get("/posts/:id", preview("post"), {
      ...opts,
      detail: doc("Admin: a post with its author", { data: t.Object({ content: Open }) }),
    })
    .delete("/posts/:id", remove("post"), {
      ...opts,
      detail: doc("Admin: remove a post", { data: t.Object({ removed: Open }) }),
    })
    .get("/comments/:id", preview("comment"), {
      ...opts,
      detail: doc("Admin: a comment with its author", { data: t.Object({ content: Open }) }),
    })
    .delete("/comments/:id", remove("comment"), {
      ...opts,
      detail: doc("Admin: remove a comment", { data: t.Object({ removed: Open }) }),
    })
    .get("/stories/:id", preview("story"), {
      ...opts,
      detail: doc("Admin: a story with its author", { data: t.Object({ content: Open }) }),
    })
    .delete("/stories/:id", remove("story"), {
      ...opts,
      detail: doc("Admin: remove a story", { data: t.Object({ removed: Open }) }),
    });
}
