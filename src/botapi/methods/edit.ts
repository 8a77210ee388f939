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
import { captionOf, formatText, MAX_CAPTION, MAX_TEXT, messageText } from "../text";
import { inputFile } from "../files";
import { BUSINESS_CONNECTION_NOT_FOUND } from "./unsupported";
import { parsePreviewState, type PreviewChoice } from "../../domain/links/preview";
import { linkPreviewChoice } from "../link-preview";

export const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

/** The bot's own message to edit, by chat_id + message_id (inline messages do not exist here). */
export async function ownMessage(ctx: BotContext): Promise<{ view: ChatView; row: MessageRow }> {
  if (ctx.params.has("inline_message_id")) throw badRequest("inline messages are not supported");
  const view = await resolveChat(ctx, "chat_id", false);
  const seq = ctx.params.int("message_id", { required: true })!;
  const row = await findMessageBySeq(ctx.app.db, view.conversation.id, seq);
  if (!row) throw badRequest("message to edit not found");
  if (row.sender_id !== ctx.me.id || row.kind !== "user") throw badRequest("message can't be edited");
  return { view, row };
}

/** A poll, location, venue, dice or contact: extra beyond the flags a text message may carry (protect_content). */
const hasNonTextExtra = (row: MessageRow): boolean =>
  row.extra !== null && Object.keys(JSON.parse(row.extra) as object).some((k) => k !== "protect_content");

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
  patch: { content?: string; entities?: unknown[]; replyMarkup?: unknown; linkPreview?: PreviewChoice },
) {
  const sameText =
    patch.content === undefined ||
    (patch.content === row.content &&
      JSON.stringify(patch.entities ?? []) === JSON.stringify(row.entities ? JSON.parse(row.entities) : []));
  const sameMarkup =
    patch.replyMarkup === undefined || JSON.stringify(patch.replyMarkup) === (row.reply_markup ?? "null");
  const samePreview =
    patch.linkPreview === undefined ||
    JSON.stringify(patch.linkPreview.options) === JSON.stringify(parsePreviewState(row.link_preview)?.options);
  if (sameText && sameMarkup && samePreview) throw badRequest(NOT_MODIFIED);
  const updated = await editMessage(ctx.app, {
    conversationId: view.conversation.id,
    seq: row.seq,
    editorId: ctx.me.id,
    content: patch.content,
    entities: patch.content === undefined ? undefined : (patch.entities ?? null),
    replyMarkup: patch.replyMarkup,
    linkPreview: patch.linkPreview,
  });
  return serializeMessage(ctx.app.db, view, updated);
}

const MEDIA_TYPES = ["photo", "video", "animation", "audio", "document"] as const;
type EditMediaType = (typeof MEDIA_TYPES)[number];

/** InputMedia of editMessageMedia, checked as the compatible API words its refusals. */
function inputMedia(ctx: BotContext) {
  let raw: unknown = ctx.params.values.media;
  if (raw === undefined || raw === null || raw === "") throw badRequest("media is empty");
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw);
    } catch {
      throw badRequest("can't parse input media JSON object");
    }
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw badRequest("can't parse InputMedia: expected an Object");
  const m = raw as Record<string, unknown>;
  if (!MEDIA_TYPES.includes(m.type as EditMediaType))
    throw badRequest(`can't parse InputMedia: unsupported media type "${String(m.type)}"`);
  if (m.media === undefined || m.media === null || m.media === "")
    throw badRequest("can't parse InputMedia: Media is not specified");
  return m as Record<string, unknown> & { type: EditMediaType };
}

/** What an album item may become: audio stays audio, a document a document, photos and videos either. */
function suitsAlbum(was: Record<string, unknown>, wasType: string | undefined, type: EditMediaType): boolean {
  if (was.audio) return type === "audio";
  if (wasType === "file") return type === "document";
  return type === "photo" || type === "video";
}

export const editMethods = {
  async editMessageText(ctx) {
    const { text, entities } = await messageText(ctx);
    const { view, row } = await ownMessage(ctx);
    if (row.media !== null || hasNonTextExtra(row)) throw badRequest("there is no text in the message to edit");
    return applyEdit(ctx, view, row, {
      content: text,
      entities,
      replyMarkup: editedMarkup(ctx, "keep"),
      linkPreview: linkPreviewChoice(ctx),
    });
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

  /**
   * Replaces the attachment of the bot's message (or turns a text message into one) with a
   * photo, video, animation, audio or document, by URL, upload or attach://, with its caption.
   */
  async editMessageMedia(ctx) {
    const { view, row } = await ownMessage(ctx);
    const m = inputMedia(ctx);
    const extra = row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : {};
    // polls, locations, dice and invoices have no attachment to replace
    if (row.invoice !== null || ["poll", "location", "venue", "dice"].some((k) => extra[k] !== undefined))
      throw badRequest("message can't be edited");
    const previous = row.media ? (JSON.parse(row.media) as Array<{ type: string; url: string }>)[0] : undefined;
    if (typeof extra.media_group_id === "string" && !suitsAlbum(extra, previous?.type, m.type))
      throw badRequest("can't use the media of the specified type in the album");
    const caption = await formatText(
      ctx.app,
      typeof m.caption === "string" ? m.caption : "",
      typeof m.parse_mode === "string" ? m.parse_mode : undefined,
      m.caption_entities,
    );
    if (caption.text.length > MAX_CAPTION) throw badRequest("message caption is too long");
    const replyMarkup = editedMarkup(ctx, "keep");
    const item = await inputFile(ctx, m.type, m.media);
    const next: Record<string, unknown> = {};
    if (typeof extra.media_group_id === "string") next.media_group_id = extra.media_group_id;
    if (m.has_spoiler === true || m.has_spoiler === "true") next.has_spoiler = true;
    if (m.type === "animation") next.animation = true;
    if (m.type === "audio") {
      const given = {
        performer: typeof m.performer === "string" ? m.performer.slice(0, 64) : undefined,
        title: typeof m.title === "string" ? m.title.slice(0, 64) : undefined,
        duration: Number.isSafeInteger(m.duration) && (m.duration as number) >= 0 ? (m.duration as number) : undefined,
      };
      next.audio = Object.values(given).some((v) => v !== undefined) ? given : true;
    }
    const sameFile = previous?.url === item.url && JSON.stringify(next) === JSON.stringify(extra);
    const sameCaption =
      caption.text === row.content &&
      JSON.stringify(caption.entities) === JSON.stringify(row.entities ? JSON.parse(row.entities) : []);
    const sameMarkup = replyMarkup === undefined || JSON.stringify(replyMarkup) === (row.reply_markup ?? "null");
    if (sameFile && sameCaption && sameMarkup) throw badRequest(NOT_MODIFIED);
    const updated = await editMessage(ctx.app, {
      conversationId: view.conversation.id,
      seq: row.seq,
      editorId: ctx.me.id,
      content: caption.text,
      entities: caption.entities,
      media: [item],
      extra: Object.keys(next).length ? next : null,
      replyMarkup,
    });
    return serializeMessage(ctx.app.db, view, updated);
  },

  async editMessageReplyMarkup(ctx) {
    const { view, row } = await ownMessage(ctx);
    return applyEdit(ctx, view, row, { replyMarkup: editedMarkup(ctx, "remove") });
  },

  /** Closes a poll the bot sent; returns the final Poll. reply_markup replaces the buttons (omitted: none). */
  async stopPoll(ctx) {
    if (ctx.params.has("business_connection_id")) throw badRequest(BUSINESS_CONNECTION_NOT_FOUND);
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
