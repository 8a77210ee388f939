import { findMessageBySeq, pinnedSeqs } from "../../domain/chats/access";
import { deleteMessage, editMessage, setPinned, setReaction } from "../../domain/chats/messages";
import { closePoll, pollOf, pollTallies, type StoredPoll } from "../../domain/chats/polls";
import type { MessageRow } from "../../domain/chats/table";
import { AppError } from "../../lib/errors";
import { resolveChat } from "../chats";
import type { BotContext, MethodTable } from "../context";
import { asBot, badRequest, forbiddenBot } from "../errors";
import { parseReplyMarkup } from "../markup";
import { serializeMessage, serializePoll, type ChatView } from "../serializers";
import { captionOf, MAX_TEXT, messageText } from "../text";

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

/** The bot's own message to edit, by chat_id + message_id (inline messages do not exist here). */
async function ownMessage(ctx: BotContext): Promise<{ view: ChatView; row: MessageRow }> {
  if (ctx.params.has("inline_message_id")) throw badRequest("inline messages are not supported");
  const view = await resolveChat(ctx, "chat_id", false);
  const seq = ctx.params.int("message_id", { required: true })!;
  const row = await findMessageBySeq(ctx.app.db, view.conversation.id, seq);
  if (!row) throw badRequest("message to edit not found");
  if (row.sender_id !== ctx.me.id || row.kind !== "user") throw badRequest("message can't be edited");
  return { view, row };
}

/** The chat's pinned messages, newest first. */
const unpin = (ctx: BotContext, view: ChatView, seq: number) =>
  asBot(() => setPinned(ctx.app, { conversationId: view.conversation.id, seq, actorId: ctx.me.id, pinned: false }), {
    403: () => forbiddenBot("not enough rights to manage pinned messages in the chat"),
    404: () => badRequest("message to unpin not found"),
  });

/** `message_ids` of the batch methods: 1 to 100 message ids. */
export function messageIds(ctx: BotContext): number[] {
  const raw = ctx.params.json("message_ids", { required: true });
  if (!Array.isArray(raw) || raw.some((id) => !Number.isSafeInteger(id)))
    throw badRequest("message_ids must be an Array of Integer");
  if (raw.length === 0 || raw.length > 100) throw badRequest("message_ids must contain 1-100 items");
  return raw as number[];
}

/** reply_markup of an edit: omitted keeps the buttons (text/caption edits), null removes them. */
function editedMarkup(ctx: BotContext, omitted: "keep" | "remove"): unknown {
  if (!ctx.params.given("reply_markup")) return omitted === "keep" ? undefined : null;
  return parseReplyMarkup(ctx.params.json("reply_markup")) ?? null;
}

async function applyEdit(
  ctx: BotContext,
  view: ChatView,
  row: MessageRow,
  patch: { content?: string; entities?: unknown[]; replyMarkup?: unknown },
) {
  const sameText =
    patch.content === undefined ||
    (patch.content === row.content &&
      JSON.stringify(patch.entities ?? []) === JSON.stringify(row.entities ? JSON.parse(row.entities) : []));
  const sameMarkup =
    patch.replyMarkup === undefined || JSON.stringify(patch.replyMarkup) === (row.reply_markup ?? "null");
  if (sameText && sameMarkup) throw badRequest(NOT_MODIFIED);
  const updated = await editMessage(ctx.app, {
    conversationId: view.conversation.id,
    seq: row.seq,
    editorId: ctx.me.id,
    content: patch.content,
    entities: patch.content === undefined ? undefined : (patch.entities ?? null),
    replyMarkup: patch.replyMarkup,
  });
  return serializeMessage(ctx.app.db, view, updated);
}

export const editMethods = {
  async editMessageText(ctx) {
    const { text, entities } = await messageText(ctx);
    const { view, row } = await ownMessage(ctx);
    if (row.media !== null || row.extra !== null) throw badRequest("there is no text in the message to edit");
    return applyEdit(ctx, view, row, { content: text, entities, replyMarkup: editedMarkup(ctx, "keep") });
  },

  async editMessageCaption(ctx) {
    const { view, row } = await ownMessage(ctx);
    if (row.media === null) throw badRequest("there is no caption in the message to edit");
    const caption = await captionOf(ctx.app, ctx.params, MAX_TEXT);
    if (caption.text.trim() === "") throw badRequest("message caption is empty");
    return applyEdit(ctx, view, row, {
      content: caption.text,
      entities: caption.entities,
      replyMarkup: editedMarkup(ctx, "keep"),
    });
  },

  async editMessageReplyMarkup(ctx) {
    const { view, row } = await ownMessage(ctx);
    return applyEdit(ctx, view, row, { replyMarkup: editedMarkup(ctx, "remove") });
  },

  /** Closes a poll the bot sent; returns the final Poll. reply_markup replaces the buttons (omitted: none). */
  async stopPoll(ctx) {
    if (ctx.params.has("business_connection_id")) throw badRequest("business connections are not supported");
    const view = await resolveChat(ctx, "chat_id", false);
    const seq = ctx.params.int("message_id", { required: true })!;
    const markup = editedMarkup(ctx, "remove");
    const row = await findMessageBySeq(ctx.app.db, view.conversation.id, seq);
    if (!row || !pollOf(row)) throw badRequest("message with poll to stop not found");
    if (row.sender_id !== ctx.me.id || row.forwarded_from !== null) throw badRequest("message can't be edited");
    const closed = await asBot(
      () => closePoll(ctx.app, { conversationId: view.conversation.id, seq, actorId: ctx.me.id, replyMarkup: markup }),
      {
        404: () => badRequest("message with poll to stop not found"),
        403: () => badRequest("message can't be edited"),
      },
    ).catch((err: unknown) => {
      if (err instanceof AppError && err.code === "POLL_CLOSED") throw badRequest("poll has already been closed");
      throw err;
    });
    return serializePoll(pollOf(closed) as StoredPoll, (await pollTallies(ctx.app.db, [closed])).get(closed.id));
  },

  async deleteMessage(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    const seq = ctx.params.int("message_id", { required: true })!;
    const row = await findMessageBySeq(ctx.app.db, view.conversation.id, seq);
    if (!row) throw badRequest("message to delete not found");
    // the compatible API reports someone else's message as a bad request, not a 403
    await asBot(
      () =>
        deleteMessage(ctx.app, { conversationId: view.conversation.id, seq, actorId: ctx.me.id, forEveryone: true }),
      {
        403: () => badRequest("message can't be deleted"),
        404: () => badRequest("message to delete not found"),
      },
    );
    return true;
  },

  /** Up to 100 at once; ids that are not found are skipped, as the compatible API does. */
  async deleteMessages(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    for (const seq of messageIds(ctx)) {
      if (!(await findMessageBySeq(ctx.app.db, view.conversation.id, seq))) continue;
      await asBot(
        () =>
          deleteMessage(ctx.app, { conversationId: view.conversation.id, seq, actorId: ctx.me.id, forEveryone: true }),
        {
          403: () => badRequest("message can't be deleted"),
          404: () => badRequest("message to delete not found"),
        },
      );
    }
    return true;
  },

  async pinChatMessage(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    const seq = ctx.params.int("message_id", { required: true })!;
    ctx.params.bool("disable_notification");
    await asBot(
      () => setPinned(ctx.app, { conversationId: view.conversation.id, seq, actorId: ctx.me.id, pinned: true }),
      {
        403: () => forbiddenBot("not enough rights to manage pinned messages in the chat"),
        404: () => badRequest("message to pin not found"),
      },
    );
    return true;
  },

  async unpinChatMessage(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    // without message_id the most recently pinned message is unpinned, as the compatible API does
    const seq = ctx.params.int("message_id") ?? (await pinnedSeqs(ctx.app.db, view.conversation.id))[0];
    if (seq === undefined) return true;
    await unpin(ctx, view, seq);
    return true;
  },

  async unpinAllChatMessages(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    for (const seq of await pinnedSeqs(ctx.app.db, view.conversation.id)) await unpin(ctx, view, seq);
    return true;
  },

  async setMessageReaction(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    const seq = ctx.params.int("message_id", { required: true })!;
    const raw = ctx.params.json("reaction");
    let emoji: string | null = null;
    if (raw !== undefined && raw !== null) {
      if (!Array.isArray(raw)) throw badRequest("reaction must be an Array of ReactionType");
      if (raw.length > 1) throw badRequest("REACTIONS_TOO_MANY");
      const r = raw[0] as { type?: unknown; emoji?: unknown } | undefined;
      if (r) {
        if (r.type !== "emoji" || typeof r.emoji !== "string") throw badRequest("REACTION_INVALID");
        emoji = r.emoji;
      }
    }
    await asBot(() => setReaction(ctx.app, { conversationId: view.conversation.id, seq, userId: ctx.me.id, emoji }), {
      404: () => badRequest("message to react not found"),
      400: () => badRequest("REACTION_INVALID"),
    });
    return true;
  },
} satisfies MethodTable;
