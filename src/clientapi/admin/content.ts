import { doc } from "../docs";
import { ContentItem as ContentItemSchema } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { findContent, removalAuditEntry, removeContent, type ContentItem } from "../../domain/moderation/content";
import type { UserRow } from "../../domain/users/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { adminContext, logged } from "./guard";

const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/**
 * /api/admin/content: look up and remove any post, comment or story by its id, whoever wrote
 * it and whoever they block. The blocked-words list is the live setting moderation.blockedWords
 * (/api/admin/settings).
 */
const NOT_FOUND: Record<ContentItem["kind"], string> = {
  post: "Post not found",
  comment: "Comment not found",
  story: "Story not found",
};

export function adminContentRoutes(app: App) {
  const find = async (kind: ContentItem["kind"], id: string) => {
    const item = await findContent(app, kind, id);
    if (!item) throw notFound(NOT_FOUND[kind]);
    const author = await app.db
      .selectFrom("users")
      .select(["cuid", "username"])
      .where("id", "=", item.authorId)
      .executeTakeFirst();
    return { item, author: { id: author?.cuid ?? null, username: author?.username ?? null } };
  };
  const show = ({ item, author }: Awaited<ReturnType<typeof find>>): typeof ContentItemSchema.static => ({
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
      const entry = removalAuditEntry(found.item, found.author.username);
      await logged(app, admin, [entry], () => removeContent(app, found.item));
      return ok({ removed: show(found) });
    };
  const opts = { admin: true, params: IdParams } as const;

  return new Elysia({ name: "admin-content" })
    .use(adminContext(app))
    .get("/posts/:id", preview("post"), {
      ...opts,
      detail: doc("Admin: a post with its author", { data: t.Object({ content: ContentItemSchema }) }),
    })
    .delete("/posts/:id", remove("post"), {
      ...opts,
      detail: doc("Admin: remove a post", { data: t.Object({ removed: ContentItemSchema }) }),
    })
    .get("/comments/:id", preview("comment"), {
      ...opts,
      detail: doc("Admin: a comment with its author", { data: t.Object({ content: ContentItemSchema }) }),
    })
    .delete("/comments/:id", remove("comment"), {
      ...opts,
      detail: doc("Admin: remove a comment", { data: t.Object({ removed: ContentItemSchema }) }),
    })
    .get("/stories/:id", preview("story"), {
      ...opts,
      detail: doc("Admin: a story with its author", { data: t.Object({ content: ContentItemSchema }) }),
    })
    .delete("/stories/:id", remove("story"), {
      ...opts,
      detail: doc("Admin: remove a story", { data: t.Object({ removed: ContentItemSchema }) }),
    });
}
