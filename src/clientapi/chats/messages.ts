import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  checkMessageMedia,
  deleteMessage,
  editMessage,
  forwardMessage,
  listHistory,
  markMediaAttached,
  markRead,
  openPrivateChat,
  requireMembershipByCuid,
  requireVisibleMessage,
  sendMessageIn,
  setPinned,
  setReaction,
  typing,
} from "../../domain/chats";
import { listChats } from "../../domain/chats/chat-list";
import type { ConversationRow, MessageRow } from "../../domain/chats/table";
import { requireUserByUsername } from "../../domain/users/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { RateLimiter } from "../../http/rate-limit";
import { AppError, fieldError, rateLimited, validationError } from "../../lib/errors";
import { parseLimit } from "../../lib/paging";
import { deliveredShape } from "./live";
import { serializeChatList, serializeConversation, serializeMessage, serializeMessages } from "./serialize";

const OpenBody = t.Object({ start: t.Optional(t.String({ maxLength: 200 })) });

const SendBody = t.Object({
  content: t.Optional(t.String()),
  clientMessageId: t.Optional(t.Union([t.String(), t.Null()])),
  replyToId: t.Optional(t.Union([t.String(), t.Integer(), t.Null()])),
  media: t.Optional(t.Array(t.Unknown())),
  entities: t.Optional(t.Array(t.Unknown())),
});

const EditBody = t.Object({ content: t.String(), entities: t.Optional(t.Array(t.Unknown())) });
const ReactionBody = t.Object({ emoji: t.Union([t.String({ maxLength: 32 }), t.Null()]) });
const ReadBody = t.Object({ messageId: t.Union([t.String(), t.Integer()]) });
const ForwardBody = t.Object({ toConversationId: t.String({ minLength: 1, maxLength: 64 }), clientMessageId: t.Optional(t.String()) });
const HistoryQuery = t.Object({ before: t.Optional(t.String()), limit: t.Optional(t.String()) });
const ListQuery = t.Object({ cursor: t.Optional(t.String()), limit: t.Optional(t.String()) });
const DeleteQuery = t.Object({ forEveryone: t.Optional(t.String()) });

/**
 * Body parser for endpoints whose JSON body may be left out: an absent or blank body is `{}`,
 * but malformed JSON or a non-object is a 400 (Elysia's parser for an optional body would
 * silently drop it). Elysia reports an error thrown here as a PARSE error, which
 * src/http/errors.ts answers with 400 VALIDATION_ERROR `fieldErrors.body`.
 */
async function jsonOrEmpty({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw validationError({ body: ["is not valid JSON"] }, "Request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw validationError({ body: ["must be a JSON object"] });
  return body;
}

/** "true"/"1" and "false"/"0"/absent; anything else names the field. */
function queryFlag(raw: string | undefined, field: string): boolean {
  if (raw === undefined || raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw fieldError(field, "must be true or false");
}

/** Private chats and messages: /api/social/users/{username}/message and /api/social/messages/* */
export function chatMessageRoutes(app: App) {
  /** Resolves a reply/read target given as the shown message id (cuid) or integer messageId, to a seq. */
  const seqOf = async (conversationId: number, ref: string | number, viewerId: number, field: string) => {
    try {
      return (await requireVisibleMessage(app.db, conversationId, ref, viewerId)).seq;
    } catch (err) {
      // a missing target is the caller's input error; anything else (the database) is not
      if (err instanceof AppError && err.status === 404) throw fieldError(field, "is not a message of this conversation");
      throw err;
    }
  };

  /** A message just written, as its live event showed it to the members (the same object), else serialized. */
  const shownMessage = async (conversation: ConversationRow, row: MessageRow) => deliveredShape(row) ?? (await serializeMessage(app.db, conversation, row));

  // people (and programs acting as them) may not flood chats: per-account sends per minute
  const limiter = new RateLimiter();
  const checkSendRate = (userId: number) => {
    const d = limiter.check(`chat-send:${userId}`, app.config["limits.messagesPerMinute"], 60_000, app.clock.now());
    if (!d.allowed) throw rateLimited(d.retryAfter);
  };
  const pin = async (userId: number, params: { cid: string; mid: string }, pinned: boolean) => {
    const { conversation } = await requireMembershipByCuid(app.db, params.cid, userId);
    const row = await setPinned(app, { conversationId: conversation.id, seq: params.mid, actorId: userId, pinned });
    return ok({ message: await shownMessage(conversation, row) });
  };

  return new Elysia({ name: "client-chats-messages", prefix: "/social" })
    .use(requestContext(app))
    .post(
      "/users/:username/message",
      async ({ user, params, body }) => {
        const other = await requireUserByUsername(app.db, params.username);
        const conversation = await openPrivateChat(app, user.id, other.id, body.start !== undefined ? { startLabel: body.start } : {});
        return ok({ conversationId: conversation.cuid, conversation: await serializeConversation(app.db, conversation, user.id) });
      },
      { auth: true, parse: jsonOrEmpty, body: OpenBody },
    )
    .get(
      "/messages",
      async ({ user, query }) => {
        const limit = parseLimit(query.limit, 20, 100);
        const page = await listChats(app.db, user.id, query.cursor, limit);
        const chats = await serializeChatList(app.db, page.items);
        return ok({ conversations: chats, pageInfo: { nextCursor: page.nextCursor }, nextCursor: page.nextCursor });
      },
      { auth: true, query: ListQuery },
    )
    .get(
      "/messages/:cid",
      async ({ user, params, query }) => {
        const limit = parseLimit(query.limit, 30, 100);
        const membership = await requireMembershipByCuid(app.db, params.cid, user.id);
        const page = await listHistory(app, membership, user.id, query.before, limit);
        return ok({
          conversation: await serializeConversation(app.db, membership.conversation, user.id, membership.member),
          messages: await serializeMessages(app.db, membership.conversation, page.items),
          pageInfo: { oldestCursor: page.nextCursor, nextCursor: page.nextCursor },
        });
      },
      { auth: true, query: HistoryQuery },
    )
    .post(
      "/messages/:cid",
      async ({ user, params, body }) => {
        const membership = await requireMembershipByCuid(app.db, params.cid, user.id);
        const { conversation } = membership;
        checkSendRate(user.id);
        const attachments = body.media === undefined ? undefined : await checkMessageMedia(app, body.media, user.id);
        const replyToSeq = body.replyToId == null ? null : await seqOf(conversation.id, body.replyToId, user.id, "replyToId");
        const row = await sendMessageIn(
          app,
          membership,
          { content: body.content, entities: body.entities, media: attachments?.media, replyToSeq, clientMessageId: body.clientMessageId ?? null },
          { replyChecked: true },
        );
        // only now are the files in use: a refused send leaves them to the cleanup of abandoned uploads
        if (attachments) await markMediaAttached(app, attachments.uploadIds);
        return ok({ message: await shownMessage(conversation, row) });
      },
      { auth: true, body: SendBody },
    )
    .post(
      "/messages/:cid/read",
      async ({ user, params, body }) => {
        const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
        const seq = await seqOf(conversation.id, body.messageId, user.id, "messageId");
        const lastReadMessageId = await markRead(app, { conversationId: conversation.id, userId: user.id, seq });
        return ok({ lastReadMessageId });
      },
      { auth: true, body: ReadBody },
    )
    .post(
      "/messages/:cid/typing",
      async ({ user, params }) => {
        const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
        await typing(app, { conversationId: conversation.id, userId: user.id });
        return ok({});
      },
      { auth: true },
    )
    .patch(
      "/messages/:cid/:mid",
      async ({ user, params, body }) => {
        const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
        const target = await requireVisibleMessage(app.db, conversation.id, params.mid, user.id);
        const row = await editMessage(app, { conversationId: conversation.id, seq: target.seq, editorId: user.id, content: body.content, entities: body.entities ?? null });
        return ok({ message: await shownMessage(conversation, row) });
      },
      { auth: true, body: EditBody },
    )
    .delete(
      "/messages/:cid/:mid",
      async ({ user, params, query }) => {
        const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
        await deleteMessage(app, { conversationId: conversation.id, seq: params.mid, actorId: user.id, forEveryone: queryFlag(query.forEveryone, "forEveryone") });
        return ok({});
      },
      { auth: true, query: DeleteQuery },
    )
    .post(
      "/messages/:cid/:mid/reactions",
      async ({ user, params, body }) => {
        const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
        const { reactions } = await setReaction(app, { conversationId: conversation.id, seq: params.mid, userId: user.id, emoji: body.emoji });
        return ok({ reactions });
      },
      { auth: true, body: ReactionBody },
    )
    .post("/messages/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, true), { auth: true })
    .delete("/messages/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, false), { auth: true })
    .post(
      "/messages/:cid/:mid/forward",
      async ({ user, params, body }) => {
        const from = await requireMembershipByCuid(app.db, params.cid, user.id);
        const to = await requireMembershipByCuid(app.db, body.toConversationId, user.id);
        checkSendRate(user.id);
        const row = await forwardMessage(app, {
          fromConversationId: from.conversation.id,
          seq: params.mid,
          actorId: user.id,
          toConversationId: to.conversation.id,
          clientMessageId: body.clientMessageId ?? null,
        });
        return ok({ message: await shownMessage(to.conversation, row) });
      },
      { auth: true, body: ForwardBody },
    );
}
