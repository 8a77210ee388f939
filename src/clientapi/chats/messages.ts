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
  requireMembershipByCuid,
  requireVisibleMessage,
  sendMessageIn,
  setPinned,
  setReaction,
  typing,
} from "../../domain/chats";
import { listChats } from "../../domain/chats/chat-list";
import type { ConversationRow, MessageRow } from "../../domain/chats/table";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { rateLimiter } from "../../cluster/counters";
import { AppError, fieldError, rateLimited } from "../../lib/errors";
import { parseLimit } from "../../lib/paging";
import { PageQuery, parseFlag } from "../input";
import { payInvoice } from "../../domain/payments/pay";
import { pressButton, webAppLaunchUrl } from "../../domain/bots/press";
import { deliveredShape } from "./live";
import { serializeChatList, serializeConversation, serializeMessage, serializeMessages } from "./serialize";

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
const ForwardBody = t.Object({
  toConversationId: t.String({ minLength: 1, maxLength: 64 }),
  clientMessageId: t.Optional(t.String()),
});
const HistoryQuery = t.Object({ before: t.Optional(t.String()), limit: t.Optional(t.String()) });
const DeleteQuery = t.Object({ forEveryone: t.Optional(t.String()) });
const PressBody = t.Object({ data: t.String({ minLength: 1, maxLength: 64 }) });
const WebAppBody = t.Object({ url: t.String({ minLength: 1, maxLength: 512 }) });

/**
 * /api/social/messages: my chats, history, send, read, typing, edit, delete, reactions, pin,
 * forward, and what a person does with a bot's message: press a button (callback), open a
 * mini-app (web-app), pay an invoice (pay). Opening a private chat is under /social/users.
 */
export function chatMessageRoutes(app: App) {
  /** Resolves a reply/read target given as the shown message id (cuid) or integer messageId, to a seq. */
  const seqOf = async (conversationId: number, ref: string | number, viewerId: number, field: string) => {
    try {
      return (await requireVisibleMessage(app.db, conversationId, ref, viewerId)).seq;
    } catch (err) {
      // a missing target is the caller's input error; anything else (the database) is not
      if (err instanceof AppError && err.status === 404)
        throw fieldError(field, "is not a message of this conversation");
      throw err;
    }
  };

  /** A message just written, as its live event showed it to the members (the same object), else serialized. */
  const shownMessage = async (conversation: ConversationRow, row: MessageRow) =>
    deliveredShape(row) ?? (await serializeMessage(app.db, conversation, row));

  // people (and programs acting as them) may not flood chats: per-account sends per minute
  const limiter = rateLimiter(app, "chat-send");
  const checkSendRate = async (userId: number) => {
    const d = await limiter.check(
      `chat-send:${userId}`,
      app.config["limits.messagesPerMinute"],
      60_000,
      app.clock.now(),
    );
    if (!d.allowed) throw rateLimited(d.retryAfter);
  };
  const pin = async (userId: number, params: { cid: string; mid: string }, pinned: boolean) => {
    const { conversation } = await requireMembershipByCuid(app.db, params.cid, userId);
    const row = await setPinned(app, { conversationId: conversation.id, seq: params.mid, actorId: userId, pinned });
    return ok({ message: await shownMessage(conversation, row) });
  };

  return (
    new Elysia({ name: "client-chats-messages" })
      .use(requestContext(app))
      .get(
        "",
        async ({ user, query }) => {
          const limit = parseLimit(query.limit, 20, 100);
          const page = await listChats(app.db, user.id, query.cursor, limit);
          const chats = await serializeChatList(app.db, page.items);
          return ok({ conversations: chats, pageInfo: { nextCursor: page.nextCursor }, nextCursor: page.nextCursor });
        },
        { auth: true, query: PageQuery },
      )
      .get(
        "/:cid",
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
        "/:cid",
        async ({ user, params, body }) => {
          const membership = await requireMembershipByCuid(app.db, params.cid, user.id);
          const { conversation } = membership;
          await checkSendRate(user.id);
          const attachments = body.media === undefined ? undefined : await checkMessageMedia(app, body.media, user.id);
          const replyToSeq =
            body.replyToId == null ? null : await seqOf(conversation.id, body.replyToId, user.id, "replyToId");
          const row = await sendMessageIn(
            app,
            membership,
            {
              content: body.content,
              entities: body.entities,
              media: attachments?.media,
              replyToSeq,
              clientMessageId: body.clientMessageId ?? null,
            },
            { replyChecked: true },
          );
          // only now are the files in use: a refused send leaves them to the cleanup of abandoned uploads
          if (attachments) await markMediaAttached(app, attachments.uploadIds);
          return ok({ message: await shownMessage(conversation, row) });
        },
        { auth: true, body: SendBody },
      )
      .post(
        "/:cid/read",
        async ({ user, params, body }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          const seq = await seqOf(conversation.id, body.messageId, user.id, "messageId");
          const lastReadMessageId = await markRead(app, { conversationId: conversation.id, userId: user.id, seq });
          return ok({ lastReadMessageId });
        },
        { auth: true, body: ReadBody },
      )
      .post(
        "/:cid/typing",
        async ({ user, params }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          await typing(app, { conversationId: conversation.id, userId: user.id });
          return ok({});
        },
        { auth: true },
      )
      .patch(
        "/:cid/:mid",
        async ({ user, params, body }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          const target = await requireVisibleMessage(app.db, conversation.id, params.mid, user.id);
          const row = await editMessage(app, {
            conversationId: conversation.id,
            seq: target.seq,
            editorId: user.id,
            content: body.content,
            entities: body.entities ?? null,
          });
          return ok({ message: await shownMessage(conversation, row) });
        },
        { auth: true, body: EditBody },
      )
      .delete(
        "/:cid/:mid",
        async ({ user, params, query }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          await deleteMessage(app, {
            conversationId: conversation.id,
            seq: params.mid,
            actorId: user.id,
            forEveryone: parseFlag(query.forEveryone, "forEveryone"),
          });
          return ok({});
        },
        { auth: true, query: DeleteQuery },
      )
      .post(
        "/:cid/:mid/reactions",
        async ({ user, params, body }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          const { reactions } = await setReaction(app, {
            conversationId: conversation.id,
            seq: params.mid,
            userId: user.id,
            emoji: body.emoji,
          });
          return ok({ reactions });
        },
        { auth: true, body: ReactionBody },
      )
      .post("/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, true), { auth: true })
      .delete("/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, false), { auth: true })
      .post(
        "/:cid/:mid/forward",
        async ({ user, params, body }) => {
          const from = await requireMembershipByCuid(app.db, params.cid, user.id);
          const to = await requireMembershipByCuid(app.db, body.toConversationId, user.id);
          await checkSendRate(user.id);
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
      )
      .post(
        "/:cid/:mid/callback",
        async ({ user, params, body }) =>
          ok({ answer: await pressButton(app, user, params.cid, params.mid, body.data) }),
        { auth: true, body: PressBody },
      )
      .post(
        "/:cid/:mid/web-app",
        async ({ user, params, body }) =>
          ok({ url: await webAppLaunchUrl(app, user, params.cid, params.mid, body.url) }),
        { auth: true, body: WebAppBody },
      )
      // answers once the bot answered its pre_checkout_query or the timeout passed:
      // {status: "paid" | "declined" | "timeout", errorMessage?, balance?}
      .post("/:cid/:mid/pay", async ({ user, params }) => ok(await payInvoice(app, user, params.cid, params.mid)), {
        auth: true,
      })
  );
}
