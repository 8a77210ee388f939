import { doc } from "../docs";
import { SearchAnswer } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { findConversationById, requireMembershipByCuid } from "../../domain/chats/access";
import type { MessageRow } from "../../domain/chats/table";
import { cachedPostViewsOf, loadPostViews } from "../../domain/posts/view";
import { blockedEitherWayIds } from "../../domain/relations/service";
import { boundedSearch } from "../../domain/search/budget";
import { searchHashtags } from "../../domain/search/hashtags";
import { searchMessages } from "../../domain/search/messages";
import { searchPeople } from "../../domain/search/people";
import { postRowsInOrder, postSearch } from "../../domain/search/posts";
import { requestContext } from "../../http/context";
import { fieldError } from "../../lib/errors";
import { ok } from "../../http/envelope";
import { PageQuery } from "../input";
import type { Db } from "../../db";
import { parseLimit } from "../../lib/paging";
import { serializeConversation, serializeMessages } from "../chats/serialize";
import { serializePost } from "../posts/serialize";
import { serializePublicUser } from "../serializers/account";

const SEARCH_TYPES = ["users", "posts", "hashtags", "messages"] as const;
type SearchType = (typeof SEARCH_TYPES)[number];

const SearchQuery = t.Object({
  q: t.String({ maxLength: 200 }),
  type: t.Optional(t.Union(SEARCH_TYPES.map((s) => t.Literal(s)))),
  chatId: t.Optional(
    t.String({ maxLength: 64, description: "with type=messages: only this chat's messages (a chat I am in)" }),
  ),
  cursor: PageQuery.properties.cursor,
  limit: t.Optional(
    t.String({ maxLength: 10, description: "items per list, 1 to 50 (default 20 with a type, 10 without)" }),
  ),
});

/**
 * Messages found across chats, each serialized the way its chat shows it, in the order found
 * (one pass per chat), and those chats as VIEWER sees them (a result names its chat).
 */
async function presentMessages(db: Db, viewerId: number, rows: MessageRow[]) {
  const byChat = new Map<number, MessageRow[]>();
  for (const row of rows) byChat.set(row.conversation_id, [...(byChat.get(row.conversation_id) ?? []), row]);
  const shown = new Map<number, unknown>();
  const chats: unknown[] = [];
  for (const [conversationId, chatRows] of byChat) {
    const conversation = await findConversationById(db, conversationId);
    if (!conversation) continue;
    const serialized = await serializeMessages(db, conversation, chatRows);
    chatRows.forEach((row, i) => shown.set(row.id, serialized[i]));
    chats.push(await serializeConversation(db, conversation, viewerId));
  }
  return { messages: rows.flatMap((row) => (shown.has(row.id) ? [shown.get(row.id)] : [])), chats };
}

/**
 * GET /api/social/search?q&type&chatId&cursor&limit. With a type, one list and its `nextCursor`;
 * without, the first page of every list and a cursor per list in `cursors`.
 */
export function searchRoutes(app: App) {
  return new Elysia({ name: "client-search" }).use(requestContext(app)).get(
    "",
    async ({ query, user }) => {
      // control characters (NUL ends a string in SQLite's FTS5 parser) separate words like spaces
      const q = query.q.replace(/\p{Cc}/gu, " ");
      const only: SearchType | undefined = query.type;
      const limit = parseLimit(query.limit, only ? 20 : 10, 50);
      const cursor = only ? (query.cursor ?? null) : null;
      if (query.chatId !== undefined && only !== "messages") throw fieldError("chatId", "needs type=messages");
      const conversationId =
        query.chatId === undefined
          ? undefined
          : (await requireMembershipByCuid(app.db, query.chatId, user.id)).conversation.id;
      const budgetMs = app.config["limits.searchBudgetMs"];
      const wants = (s: SearchType) => !only || only === s;
      // the posts' search and views leave them out; people's search does so in its statement
      const blocked = wants("posts") ? await blockedEitherWayIds(app.db, user.id) : [];
      // searching is a long read: off the serving thread (Storage.longReads)
      const reads = app.storage.longReads;
      const [people, posts, hashtags, messages] = await boundedSearch(app.storage, () =>
        Promise.all([
          wants("users") ? searchPeople(reads, q, { viewer: user.id, cursor, limit }) : null,
          wants("posts")
            ? postSearch.searchPosts(reads, q, { excludeAuthorIds: blocked, cursor, limit, budgetMs })
            : null,
          wants("hashtags") ? searchHashtags(reads, q, { cursor, limit }) : null,
          wants("messages")
            ? searchMessages(app.storage, user.id, q, { cursor, limit, budgetMs, conversationId })
            : null,
        ]),
      );
      let postViews: unknown[] = [];
      if (posts) {
        const ordered = await postRowsInOrder(app.db, posts.postIds);
        postViews = (await loadPostViews(app.db, cachedPostViewsOf(app), user.id, ordered, new Set(blocked))).map(
          serializePost,
        );
      }
      const cursors = {
        users: people?.nextCursor ?? null,
        posts: posts?.nextCursor ?? null,
        hashtags: hashtags?.nextCursor ?? null,
        messages: messages?.nextCursor ?? null,
      };
      const found = messages ? await presentMessages(app.db, user.id, messages.messages) : null;
      return ok({
        query: query.q,
        type: only ?? "all",
        users: people ? people.users.map(serializePublicUser) : [],
        posts: postViews,
        hashtags: hashtags ? hashtags.hashtags : [],
        messages: found?.messages ?? [],
        chats: found?.chats ?? [],
        nextCursor: only ? cursors[only] : null,
        cursors,
      });
    },
    {
      auth: true,
      query: SearchQuery,
      detail: doc("Search people, posts, hashtags and my messages", {
        description:
          "With `type`, one list and its `nextCursor` (pass it as `cursor`); `chatId` (with `type=messages`) keeps one chat's messages; without, the first page of every list and a cursor per list in `cursors`. Posts and messages come newest first; a page of them may be shorter than `limit` with a cursor still to read on. A search over its time budget (`limits.searchBudgetMs`) answers 503 SEARCH_TIMEOUT.",
        data: SearchAnswer,
      }),
    },
  );
}
