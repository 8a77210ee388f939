import { doc, NullableString } from "../docs";
import { CallbackAnswer, ChatListItem, ChatPoll, Conversation, Message, Page } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  answerPoll,
  checkMessageMedia,
  deleteMessage,
  editMessage,
  forwardMessage,
  isJustStored,
  markMediaAttached,
  markRead,
  requireMembershipByCuid,
  requireVisibleMessage,
  sendMessageByCuid,
  sendMessageIn,
  setPinned,
  setReaction,
  typing,
} from "../../domain/chats";
import type { ConversationRow, MessageRow, SendChat } from "../../domain/chats/table";
import type { UserRow } from "../../domain/users/table";
import { jsonText, ok, type SetHeaders } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { rateLimiter } from "../../cluster/counters";
import type { LimitDecision } from "../../lib/rate-limit";
import { AppError, fieldError, rateLimited } from "../../lib/errors";
import { parseLimit } from "../../lib/paging";
import { PageQuery, parseFlag } from "../input";
import { payInvoice } from "../../domain/payments/pay";
import { menuWebAppLaunchUrl, pressButton, webAppLaunchUrl } from "../../domain/bots/press";
import { deliveredShape, messageJsonOf } from "./live";
import { webAppFraming } from "./web-app-framing";
import { chatListAnswer } from "./list-answers";
import { historyResponse } from "./history-answers";
import { freshMessageShape, serializeMessage, type ClientMessage } from "./serialize";

const SendBody = t.Object({
  content: t.Optional(t.String()),
  clientMessageId: t.Optional(t.Union([t.String(), t.Null()])),
  replyToId: t.Optional(t.Union([t.String(), t.Integer(), t.Null()])),
  media: t.Optional(
    t.Array(t.Unknown(), {
      description:
        "attachments: {type (image, video, voice, file, sticker), url (from /api/account/upload), alt (an image's description, alt text, up to 1,500 characters), name, durationMs, waveform}",
    }),
  ),
  entities: t.Optional(t.Array(t.Unknown())),
  linkPreview: t.Optional(
    t.Boolean({
      description:
        "false: no preview of the text's first link (the sender removed it); by default the server reads the page and the message gains linkPreview",
    }),
  ),
});

const EditBody = t.Object({
  content: t.Optional(t.String()),
  entities: t.Optional(t.Array(t.Unknown())),
  linkPreview: t.Optional(
    t.Boolean({
      description:
        "false removes the preview of the text's first link, true brings it back; left out, an edit keeps the choice while the link stays the same",
    }),
  ),
  mediaAlts: t.Optional(
    t.Array(t.Union([t.String({ maxLength: 6000 }), t.Null()]), {
      maxItems: 10,
      description:
        "new descriptions (alt text, up to 1,500 characters each) of the message's attachments, by index; empty or null removes one",
    }),
  ),
});
const ReactionBody = t.Object({ emoji: t.Union([t.String({ maxLength: 32 }), t.Null()]) });
const ReadBody = t.Object({ messageId: t.Union([t.String(), t.Integer()]) });
const ForwardBody = t.Object({
  toConversationId: t.String({ minLength: 1, maxLength: 64 }),
  clientMessageId: t.Optional(t.String()),
});
const HistoryQuery = t.Object({
  before: t.Optional(t.String()),
  after: t.Optional(t.String()),
  around: t.Optional(
    t.String({ maxLength: 64, description: "a message's id or messageId: the page around it (both cursors)" }),
  ),
  limit: t.Optional(t.String()),
});
const DeleteQuery = t.Object({ forEveryone: t.Optional(t.String()) });
const PressBody = t.Object({ data: t.String({ minLength: 1, maxLength: 64 }) });
const WebAppBody = t.Object({ url: t.String({ minLength: 1, maxLength: 512 }) });
const WebAppLaunch = t.Object({
  url: t.String(),
  framing: t.Union([t.Literal("allowed"), t.Literal("refused"), t.Literal("unknown")], {
    description:
      "refused: the page forbids frames (CSP frame-ancestors or X-Frame-Options), so open it in a new tab; unknown: it could not be asked",
  }),
});
const PollVoteBody = t.Object({
  options: t.Array(t.Integer({ minimum: 0, maximum: 11 }), { minItems: 1, maxItems: 12 }),
});

/**
 * /api/social/messages: my chats, history, send, read, typing, edit, delete, reactions, pin,
 * forward, and what a person does with a bot's message: press a button (callback), open a
 * mini-app (web-app; the bot's menu mini-app: /:cid/web-app), pay an invoice (pay), vote in a poll or take the vote back (poll/vote). Opening a private chat is under /social/users.
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

  /** A message just sent: its live event's shape when someone was shown it, else built here (a repeat's stored row may have reactions). */
  const sentMessage = async (conversation: SendChat, row: MessageRow, sender: UserRow) =>
    deliveredShape(row) ??
    (isJustStored(row) ? freshMessageShape(conversation, row, sender) : undefined) ??
    (await serializeMessage(app.db, conversation, row, { fresh: isJustStored(row), known: [sender] }));
  /** ok({ message }) as JSON text, the message's own text shared with its live event (messageJsonOf). */
  const sentAnswer = (message: ClientMessage, set: SetHeaders) =>
    jsonText(set, `{"success":true,"data":{"message":${messageJsonOf(message)}}}`);

  // people (and programs acting as them) may not flood chats: per-account sends per minute
  const limiter = rateLimiter(app, "chat-send");
  const refuseOverRate = (d: LimitDecision) => {
    if (!d.allowed) throw rateLimited(d.retryAfter);
  };
  /** Throws when USERID is over the limit: at once where sends are counted in memory (one node), else a promise. */
  const checkSendRate = (userId: number): void | Promise<void> => {
    const d = limiter.checkNow(`chat-send:${userId}`, app.config["limits.messagesPerMinute"], 60_000, app.clock.now());
    return d instanceof Promise ? d.then(refuseOverRate) : refuseOverRate(d);
  };
  /** A vote (OPTIONS) or, with none, a vote taken back: answers the poll and message as this person sees them now. */
  const answer = async (userId: number, params: { cid: string; mid: string }, options: number[]) => {
    const { conversation } = await requireMembershipByCuid(app.db, params.cid, userId);
    const { message: row } = await answerPoll(app, {
      conversationId: conversation.id,
      ref: params.mid,
      userId,
      options,
    });
    const message = await serializeMessage(app.db, conversation, row, { viewerId: userId });
    return ok({ poll: message.poll, message });
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
        async ({ user, query, set }) => {
          const limit = parseLimit(query.limit, 20, 100);
          return jsonText(set, await chatListAnswer(app, user.id, query.cursor, limit));
        },
        {
          auth: true,
          query: PageQuery,
          detail: doc("My chats, most recent first, each with its last message and unread count", {
            data: t.Composite([Page("conversations", ChatListItem), t.Object({ nextCursor: NullableString })]),
          }),
        },
      )
      .get("/:cid", ({ user, params, query, set }) => historyResponse(app, set, user, params.cid, query), {
        auth: true,
        query: HistoryQuery,
        detail: doc(
          "A chat and a page of its history, newest first (?before=<pageInfo.oldestCursor> for older, ?after=<pageInfo.newestCursor> for newer; null where the history ends; ?around=<message id> for the page around a message)",
          {
            data: t.Object({
              conversation: Conversation,
              messages: t.Array(Message),
              pageInfo: t.Object({
                oldestCursor: NullableString,
                newestCursor: NullableString,
                nextCursor: NullableString,
              }),
            }),
            errors: ["PERMISSION_DENIED"],
          },
        ),
      })
      .post(
        "/:cid",
        async ({ user, params, body, set }) => {
          const content = {
            content: body.content,
            entities: body.entities,
            clientMessageId: body.clientMessageId ?? null,
            linkPreview: body.linkPreview === undefined ? undefined : { off: !body.linkPreview },
          };
          if (body.media === undefined && body.replyToId == null) {
            // nothing to look up in the chat first: its membership is read in the send's transaction
            const rate = checkSendRate(user.id);
            if (rate) await rate;
            const { conversation, row } = await sendMessageByCuid(app, params.cid, user.id, content, { sender: user });
            return sentAnswer(await sentMessage(conversation, row, user), set);
          }
          const membership = await requireMembershipByCuid(app.db, params.cid, user.id);
          const { conversation } = membership;
          await checkSendRate(user.id);
          const attachments = body.media === undefined ? undefined : await checkMessageMedia(app, body.media, user.id);
          const replyToSeq =
            body.replyToId == null ? null : await seqOf(conversation.id, body.replyToId, user.id, "replyToId");
          const row = await sendMessageIn(
            app,
            membership,
            { ...content, media: attachments?.media, replyToSeq },
            { replyChecked: true, sender: user },
          );
          // only now are the files in use: a refused send leaves them to the cleanup of abandoned uploads
          if (attachments) await markMediaAttached(app, attachments.uploadIds);
          return sentAnswer(await sentMessage(conversation, row, user), set);
        },
        {
          auth: true,
          body: SendBody,
          detail: doc(
            "Send a message (text, media from /api/account/upload, a reply); clientMessageId makes retries safe",
            {
              data: t.Object({ message: Message }),
              errors: ["PERMISSION_DENIED", "FORBIDDEN", "BOT_DISABLED", "BOT_BLOCKED", "CONTENT_REJECTED"],
            },
          ),
        },
      )
      .post(
        "/:cid/read",
        async ({ user, params, body }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          const seq = await seqOf(conversation.id, body.messageId, user.id, "messageId");
          const lastReadMessageId = await markRead(app, { conversationId: conversation.id, userId: user.id, seq });
          return ok({ lastReadMessageId });
        },
        {
          auth: true,
          body: ReadBody,
          detail: doc("Mark the chat read up to a message", { data: t.Object({ lastReadMessageId: t.Integer() }) }),
        },
      )
      .post(
        "/:cid/typing",
        async ({ user, params }) => {
          const { conversation } = await requireMembershipByCuid(app.db, params.cid, user.id);
          await typing(app, { conversationId: conversation.id, userId: user.id });
          return ok({});
        },
        { auth: true, detail: doc("Show the others that I am typing") },
      )
      .post(
        "/:cid/web-app",
        async ({ user, params }) => {
          const url = await menuWebAppLaunchUrl(app, user, params.cid);
          return ok({ url, framing: await webAppFraming(app, url) });
        },
        {
          auth: true,
          detail: doc(
            "Open the mini-app a bot set as its menu button in my chat with it (setChatMenuButton): the URL with signed launch data in its fragment, and whether its page lets the app frame it",
            { data: WebAppLaunch },
          ),
        },
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
            // entities go with the text they lie in: kept when only the descriptions change
            entities: body.content !== undefined ? (body.entities ?? null) : body.entities,
            mediaAlts: body.mediaAlts,
            linkPreview: body.linkPreview === undefined ? undefined : { off: !body.linkPreview },
          });
          return ok({ message: await shownMessage(conversation, row) });
        },
        {
          auth: true,
          body: EditBody,
          detail: doc("Edit my message (a bot in the chat receives edited_message)", {
            data: t.Object({ message: Message }),
            errors: ["FORBIDDEN", "PERMISSION_DENIED"],
          }),
        },
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
        {
          auth: true,
          query: DeleteQuery,
          detail: doc("Delete a message (for me, or ?forEveryone=true)", {
            errors: ["FORBIDDEN", "PERMISSION_DENIED"],
          }),
        },
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
        {
          auth: true,
          body: ReactionBody,
          detail: doc("Set my reaction to a message (null removes it)", {
            data: t.Object({ reactions: t.Array(t.Unknown()) }),
            errors: ["PERMISSION_DENIED"],
          }),
        },
      )
      .post("/:cid/:mid/poll/vote", ({ user, params, body }) => answer(user.id, params, body.options), {
        auth: true,
        body: PollVoteBody,
        detail: doc("Vote in a bot's poll (one vote set per person)", {
          data: t.Object({ poll: ChatPoll, message: Message }),
          errors: ["ALREADY_VOTED", "POLL_CLOSED"],
        }),
      })
      .delete("/:cid/:mid/poll/vote", ({ user, params }) => answer(user.id, params, []), {
        auth: true,
        detail: doc("Take back my vote in a bot's poll", {
          data: t.Object({ poll: ChatPoll, message: Message }),
          errors: ["PERMISSION_DENIED", "POLL_CLOSED"],
        }),
      })
      .post("/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, true), {
        auth: true,
        detail: doc("Pin a message", { data: t.Object({ message: Message }), errors: ["PERMISSION_DENIED"] }),
      })
      .delete("/:cid/:mid/pin", ({ user, params }) => pin(user.id, params, false), {
        auth: true,
        detail: doc("Unpin a message", { data: t.Object({ message: Message }), errors: ["PERMISSION_DENIED"] }),
      })
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
        {
          auth: true,
          body: ForwardBody,
          detail: doc("Forward a message to another of my chats", {
            data: t.Object({ message: Message }),
            errors: ["PERMISSION_DENIED", "FORBIDDEN"],
          }),
        },
      )
      .post(
        "/:cid/:mid/callback",
        async ({ user, params, body }) =>
          ok({ answer: await pressButton(app, user, params.cid, params.mid, body.data) }),
        {
          auth: true,
          body: PressBody,
          detail: doc("Press an inline button of a bot's message; answers once the bot answers or a few seconds pass", {
            data: t.Object({
              answer: CallbackAnswer,
            }),
            errors: ["PERMISSION_DENIED"],
          }),
        },
      )
      .post(
        "/:cid/:mid/web-app",
        async ({ user, params, body }) => {
          // the button is checked first: only a mini-app of this message is ever fetched
          const url = await webAppLaunchUrl(app, user, params.cid, params.mid, body.url);
          return ok({ url, framing: await webAppFraming(app, url) });
        },
        {
          auth: true,
          body: WebAppBody,
          detail: doc(
            "Open a bot's mini-app button: the URL with signed launch data (tgWebAppData) in its fragment, and whether its page lets the app frame it",
            {
              data: WebAppLaunch,
              errors: ["PERMISSION_DENIED"],
            },
          ),
        },
      )
      // answers once the bot answered its pre_checkout_query or the timeout passed:
      // {status: "paid" | "declined" | "timeout", errorMessage?, balance?}
      .post("/:cid/:mid/pay", async ({ user, params }) => ok(await payInvoice(app, user, params.cid, params.mid)), {
        auth: true,
        detail: doc("Pay a bot's invoice in stars; answers once the bot accepted or declined, or the wait ran out", {
          data: t.Object(
            {
              status: t.Union([t.Literal("paid"), t.Literal("declined"), t.Literal("timeout")]),
              errorMessage: t.Optional(t.String()),
              balance: t.Optional(t.Integer()),
            },
            { additionalProperties: true },
          ),
          errors: ["INSUFFICIENT_BALANCE", "INVOICE_ALREADY_PAID", "PAYMENT_IN_PROGRESS", "PERMISSION_DENIED"],
        }),
      })
  );
}
