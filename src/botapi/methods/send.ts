import { randomInt } from "../../lib/crypto";
import { toUnixSeconds } from "../../lib/clock";
import type { MessageRow } from "../../domain/chats/table";
import { AppError } from "../../lib/errors";
import { messageIds } from "./edit";
import type { App } from "../../app";
import type { MessageEntity } from "../formatting";
import { findMessageBySeq } from "../../domain/chats/access";
import { inTransaction, type Scope } from "../../db/transaction";
import {
  forwardMessage,
  isProtectedMessage,
  storeMessage,
  typing,
  type SendMessageInput,
} from "../../domain/chats/messages";
import type { MediaItem } from "../../domain/chats/validate";
import { isBlockedEitherWay } from "../../domain/relations/service";
import { randomToken } from "../../lib/ids";
import type { PreviewChoice } from "../../domain/links/preview";
import { linkPreviewChoice } from "../link-preview";
import { findPersonChatForSend, resolveChat, sendToPersonInOneStatement } from "../chats";
import type { BotContext, MethodTable } from "../context";
import { asBot, badRequest, blockedByUser, chatNotFound } from "../errors";
import { inputFile, type FileField } from "../files";
import { parseReplyMarkup } from "../markup";
import { messageShapeNow, serializeMessage, serializeMessages, type BotMessage, type ChatView } from "../serializers";
import { captionOf, formatText, MAX_CAPTION, messageText } from "../text";

type Outgoing = Omit<SendMessageInput, "conversationId" | "senderId">;

/** reply_parameters (or the older reply_to_message_id) → the seq replied to, checked to exist. */
async function replyTarget(ctx: BotContext, view: ChatView): Promise<number | null> {
  const rp = ctx.params.json("reply_parameters");
  let seq: number | undefined;
  let lenient = false;
  if (rp !== undefined && rp !== null) {
    if (typeof rp !== "object" || !Number.isSafeInteger((rp as { message_id?: unknown }).message_id))
      throw badRequest("reply_parameters must have an Integer message_id");
    seq = (rp as { message_id: number }).message_id;
    lenient = (rp as { allow_sending_without_reply?: unknown }).allow_sending_without_reply === true;
  } else {
    seq = ctx.params.int("reply_to_message_id");
    lenient = ctx.params.bool("allow_sending_without_reply") === true;
  }
  if (seq === undefined) return null;
  if (await findMessageBySeq(ctx.app.db, view.conversation.id, seq)) return seq;
  if (lenient) return null;
  throw badRequest("message to be replied not found");
}

/** OUT with the options every send takes, checked before its chat is needed (reply_markup, the ignored flags). */
function withSendOptions(ctx: BotContext, out: Outgoing, markupOpts: { allowPay?: boolean }): Outgoing {
  // accepted for compatibility (no push notifications), but must be well-formed
  ctx.params.bool("disable_notification");
  // kept with the message: people cannot forward, copy or save it (isProtectedMessage)
  const protect = ctx.params.bool("protect_content") === true;
  const replyMarkup =
    out.replyMarkup !== undefined ? out.replyMarkup : parseReplyMarkup(ctx.params.json("reply_markup"), markupOpts);
  const extra = protect ? { ...(out.extra ?? {}), protect_content: true } : out.extra;
  return { ...out, extra, replyMarkup: replyMarkup ?? undefined };
}

/**
 * The bot's account is ctx.me. The bot's membership is checked in the send's transaction,
 * against the chat's members the send reads anyway (checkMember: where the message is written,
 * no statement of its own); a bot sends no clientMessageId, so no repeat to catch.
 */
const storeOptions = (ctx: BotContext, replyChecked: boolean) => ({
  sender: ctx.me,
  replyChecked,
  checkMember: true,
});
/** The chat gone, or the bot no longer in it, as the compatible API says it. */
const REFUSALS = { 403: blockedByUser, 404: chatNotFound };

/**
 * Posts a message from the bot into the chat and returns it as a Bot API Message. COMPOSE
 * adds writes that commit with the message, in its transaction (an invoice's row).
 */
export async function post(
  ctx: BotContext,
  view: ChatView,
  out: Outgoing,
  markupOpts: { allowPay?: boolean } = {},
  compose?: (scope: Scope, row: MessageRow) => Promise<void>,
): Promise<BotMessage> {
  const prepared = withSendOptions(ctx, out, markupOpts);
  const replyToSeq = out.replyToSeq !== undefined ? out.replyToSeq : await replyTarget(ctx, view);
  const input = { ...prepared, replyToSeq };
  const opts = storeOptions(ctx, out.replyToSeq === undefined);
  // the chat is the one resolveChat just read
  const sending = { conversation: view.conversation, member: { user_id: ctx.me.id } };
  const store = () =>
    inTransaction(ctx.app.storage, async (scope) => {
      const row = await storeMessage(scope, ctx.app, sending, input, opts);
      if (compose) await compose(scope, row);
      return row;
    });
  const row = await asBot(store, REFUSALS);
  return messageShapeNow(view, row) ?? serializeMessage(ctx.app.db, view, row);
}

/**
 * sendMessage to a person by Bot API id (REF), replying to nothing: the person and their chat
 * with the bot are read in the send's transaction, where a read costs less than on its own.
 * The refusals come in resolveChat's order (the chat's before the text's). Undefined, with
 * nothing written, when the two have no chat yet: resolveChat opens it.
 */
async function sendToPerson(
  ctx: BotContext,
  ref: number,
  linkPreview: PreviewChoice | undefined,
): Promise<BotMessage | undefined> {
  // the text is formatted first: a mention by id reads its account, which no statement outside
  // the send's transaction could do while that transaction holds the connection
  let input: Outgoing | undefined;
  let invalid: { error: unknown } | undefined;
  try {
    const { text, entities } = await messageText(ctx);
    input = { ...withSendOptions(ctx, { content: text, entities, linkPreview }, {}), replyToSeq: null };
  } catch (error) {
    invalid = { error };
  }
  // PostgreSQL only: SQLite's send is one transaction on the writer's connection already
  if (!invalid && ctx.app.storage.engine === "postgres") {
    const one = () => sendToPersonInOneStatement(ctx.app, ctx.me, ref, input!, storeOptions(ctx, true));
    const sent = await asBot(one, REFUSALS);
    if (sent) return messageShapeNow(sent.view, sent.row) ?? serializeMessage(ctx.app.db, sent.view, sent.row);
  }
  let view: ChatView | undefined;
  const store = () =>
    inTransaction(ctx.app.storage, async (scope) => {
      const found = await findPersonChatForSend(ctx.app, scope, ctx.me, ref);
      view = found?.view;
      // no chat yet, or a text to refuse once the chat is known: nothing written
      if (!found || invalid) return undefined;
      const sending = { conversation: found.view.conversation, member: { user_id: ctx.me.id } };
      return storeMessage(scope, ctx.app, sending, input!, { ...storeOptions(ctx, true), audience: found.audience });
    });
  const row = await asBot(store, REFUSALS);
  if (view && invalid) throw invalid.error;
  return row && (messageShapeNow(view!, row) ?? serializeMessage(ctx.app.db, view!, row));
}

/** sendPhoto, sendVideo, ...: one attachment with an optional caption. */
function sendFile(field: FileField, extraFlags: Record<string, unknown> = {}) {
  return async (ctx: BotContext) => {
    const view = await resolveChat(ctx);
    const caption = await captionOf(ctx.app, ctx.params);
    const markup = parseReplyMarkup(ctx.params.json("reply_markup"));
    const replyToSeq = await replyTarget(ctx, view);
    const fileName = field === "document" || field === "audio" ? ctx.params.str("file_name", { max: 255 }) : undefined;
    const item = await inputFile(ctx, field, ctx.params.values[field], { fileName });
    const extra: Record<string, unknown> = { ...extraFlags };
    if (ctx.params.bool("has_spoiler")) extra.has_spoiler = true;
    return post(ctx, view, {
      content: caption.text,
      entities: caption.entities,
      media: [item],
      extra: Object.keys(extra).length ? extra : null,
      replyMarkup: markup ?? undefined,
      replyToSeq,
    });
  };
}

/** live_period: 60 s to a day, or 0x7FFFFFFF for "until stopped"; absent for a plain location. */
function livePeriod(ctx: BotContext): number | undefined {
  const period = ctx.params.int("live_period");
  if (period === undefined) return undefined;
  if (period !== LIVE_FOREVER && (period < 60 || period > 86400)) throw badRequest("wrong live period specified");
  return period;
}
const LIVE_FOREVER = 0x7fffffff;

/** the longest open_period the compatible server passes on (a month) */
const MAX_POLL_OPEN_PERIOD = 2_628_000;

const DICE: Record<string, number> = { "🎲": 6, "🎯": 6, "🎳": 6, "🏀": 5, "⚽": 5, "🎰": 64 };

/** Poll options: Strings or InputPollOption objects, whose text may carry markup (text_parse_mode / text_entities). */
async function pollOptions(app: App, raw: unknown): Promise<{ text: string; text_entities?: MessageEntity[] }[]> {
  if (!Array.isArray(raw)) throw badRequest("options must be an Array");
  if (raw.length < 2) throw badRequest("poll must have at least 2 option");
  if (raw.length > 12) throw badRequest("poll can't have more than 12 options");
  const options = [];
  for (const o of raw) {
    const option =
      typeof o === "string"
        ? { text: o }
        : o && typeof o === "object"
          ? (o as { text?: unknown; text_parse_mode?: unknown; text_entities?: unknown })
          : null;
    if (option === null || typeof option.text !== "string" || option.text.trim().length === 0)
      throw badRequest("poll options must be non-empty");
    const parseMode = typeof option.text_parse_mode === "string" ? option.text_parse_mode : undefined;
    const { text, entities } = await formatText(app, option.text, parseMode, option.text_entities);
    if (text.length === 0) throw badRequest("poll options must be non-empty");
    if (text.length > 100) throw badRequest("poll options length must not exceed 100");
    options.push(entities.length ? { text, text_entities: entities } : { text });
  }
  return options;
}

/** open_period (seconds, as the compatible server clamps it) or close_date (unix seconds): when the poll closes by itself. */
function closing(ctx: BotContext): { open_period?: number; close_date?: number } {
  const openPeriod = Math.min(Math.max(ctx.params.lenientInt("open_period", 0), 0), MAX_POLL_OPEN_PERIOD);
  if (openPeriod > 0) return { open_period: openPeriod, close_date: toUnixSeconds(ctx.app.clock.now()) + openPeriod };
  const closeDate = ctx.params.lenientInt("close_date", 0);
  return closeDate > 0 ? { close_date: closeDate } : {};
}

export function coordinates(ctx: BotContext) {
  const latitude = ctx.params.float("latitude", { required: true, min: -90, max: 90 })!;
  const longitude = ctx.params.float("longitude", { required: true, min: -180, max: 180 })!;
  return { latitude, longitude };
}

/** The message a forward or copy takes: in from_chat_id when given, else in the target chat. */
async function sourceMessage(
  ctx: BotContext,
  target: ChatView,
  what: string,
  seq = ctx.params.int("message_id", { required: true })!,
) {
  // the source chat must already exist: naming a person never opens a chat here
  const source = ctx.params.has("from_chat_id") ? await resolveChat(ctx, "from_chat_id", false) : target;
  const row = await findMessageBySeq(ctx.app.db, source.conversation.id, seq);
  if (!row || row.kind !== "user") throw badRequest(`message to ${what} not found`);
  // an invoice is paid once, in its own chat; a protected message stays where it was sent
  if (row.invoice !== null || isProtectedMessage(row))
    throw badRequest(`message can't be ${what === "copy" ? "copied" : "forwarded"}`);
  return { source, row };
}

export const sendMethods = {
  async sendMessage(ctx) {
    const ref = ctx.params.chatRef()!;
    const linkPreview = linkPreviewChoice(ctx);
    if (
      typeof ref === "number" &&
      ref > 0 &&
      !ctx.params.has("reply_parameters") &&
      !ctx.params.has("reply_to_message_id")
    ) {
      const sent = await sendToPerson(ctx, ref, linkPreview);
      if (sent) return sent;
    }
    const view = await resolveChat(ctx);
    const { text, entities } = await messageText(ctx);
    return post(ctx, view, { content: text, entities, linkPreview });
  },

  sendPhoto: sendFile("photo"),
  sendVideo: sendFile("video"),
  sendAnimation: sendFile("animation", { animation: true }),
  sendVoice: sendFile("voice"),
  sendVideoNote: sendFile("video_note"),
  sendDocument: sendFile("document"),
  async sendAudio(ctx) {
    const performer = ctx.params.str("performer", { max: 64 });
    const title = ctx.params.str("title", { max: 64 });
    const duration = ctx.params.int("duration", { min: 0 });
    // the cover (thumbnail; thumb in older libraries): a part, attach://, a file URL or an https URL
    const { files, values } = ctx.params;
    const cover = files.get("thumbnail") ?? files.get("thumb") ?? values.thumbnail ?? values.thumb;
    const image =
      cover === undefined || cover === null || cover === "" ? undefined : await inputFile(ctx, "photo", cover);
    const thumbnail = image && { url: image.url, width: image.width, height: image.height, sizeBytes: image.sizeBytes };
    return sendFile("audio", {
      audio:
        performer !== undefined || title !== undefined || duration !== undefined || thumbnail
          ? { performer, title, duration, thumbnail }
          : true,
    })(ctx);
  },
  sendSticker: sendFile("sticker"),

  async sendMediaGroup(ctx) {
    const view = await resolveChat(ctx);
    const raw = ctx.params.json("media", { required: true });
    if (!Array.isArray(raw)) throw badRequest("media must be an Array of InputMedia");
    if (raw.length < 2 || raw.length > 10) throw badRequest("media must include 2-10 items");
    const items = raw.map((m, i) => {
      if (!m || typeof m !== "object") throw badRequest(`media[${i}] must be an InputMedia object`);
      const { type } = m as { type?: unknown };
      if (type !== "photo" && type !== "video" && type !== "document" && type !== "audio")
        throw badRequest(`media[${i}]: type must be one of photo, video, document, audio`);
      return m as {
        type: "photo" | "video" | "document" | "audio";
        media?: unknown;
        caption?: unknown;
        parse_mode?: unknown;
        caption_entities?: unknown;
        has_spoiler?: unknown;
      };
    });
    const docs = items.filter((m) => m.type === "document" || m.type === "audio").length;
    if (docs !== 0 && docs !== items.length)
      throw badRequest("documents and audio can't be mixed with other media types in a media group");
    const captions = [];
    for (const [i, m] of items.entries()) {
      if (m.caption !== undefined && typeof m.caption !== "string")
        throw badRequest(`media[${i}].caption must be a String`);
      const out = await formatText(
        ctx.app,
        (m.caption as string | undefined) ?? "",
        typeof m.parse_mode === "string" ? m.parse_mode : ctx.params.str("parse_mode"),
        m.caption_entities,
      );
      if (out.text.length > MAX_CAPTION) throw badRequest("message caption is too long");
      captions.push(out);
    }
    const replyToSeq = await replyTarget(ctx, view);
    const files: MediaItem[] = [];
    for (const m of items) files.push(await inputFile(ctx, m.type, m.media));
    const groupId = randomToken(12);
    const sent: BotMessage[] = [];
    for (let i = 0; i < items.length; i++) {
      const extra: Record<string, unknown> = { media_group_id: groupId };
      if (items[i]!.has_spoiler === true || items[i]!.has_spoiler === "true") extra.has_spoiler = true;
      if (items[i]!.type === "audio") extra.audio = true;
      sent.push(
        await post(ctx, view, {
          content: captions[i]!.text,
          entities: captions[i]!.entities,
          media: [files[i]!],
          extra,
          replyMarkup: null,
          replyToSeq: i === 0 ? replyToSeq : null,
        }),
      );
    }
    return sent;
  },

  async sendLocation(ctx) {
    const view = await resolveChat(ctx);
    const location: Record<string, unknown> = coordinates(ctx);
    const address = ctx.params.str("address", { max: 200 });
    const live = livePeriod(ctx);
    // a live location can be moved (editMessageLiveLocation) until it is stopped or its period ends
    if (live !== undefined) location.live_period = live;
    const until = live === undefined ? {} : { live_until: toUnixSeconds(ctx.app.clock.now()) + live };
    return post(ctx, view, { content: "", extra: { location, ...until, ...(address ? { address } : {}) } });
  },

  async sendContact(ctx) {
    const view = await resolveChat(ctx);
    const phone = ctx.params.str("phone_number", { required: true, max: 64, empty: "phone number is empty" })!;
    const firstName = ctx.params.str("first_name", { required: true, max: 64, empty: "first name is empty" })!;
    const contact: Record<string, unknown> = { phone_number: phone, first_name: firstName };
    const lastName = ctx.params.str("last_name", { max: 64 });
    if (lastName) contact.last_name = lastName;
    const vcard = ctx.params.str("vcard", { max: 2048 });
    if (vcard) contact.vcard = vcard;
    return post(ctx, view, { content: "", extra: { contact } });
  },

  async sendVenue(ctx) {
    const view = await resolveChat(ctx);
    const location = coordinates(ctx);
    const title = ctx.params.str("title", { required: true, max: 120, empty: "venue title is empty" })!;
    const address = ctx.params.str("address", { max: 200 }) ?? "";
    const venue: Record<string, unknown> = { location, title, address };
    for (const field of ["foursquare_id", "foursquare_type", "google_place_id", "google_place_type"]) {
      const value = ctx.params.str(field, { max: 256 });
      if (value) venue[field] = value;
    }
    return post(ctx, view, { content: "", extra: { location, venue } });
  },

  async sendPoll(ctx) {
    const view = await resolveChat(ctx);
    const rawQuestion = ctx.params.str("question", { required: true, empty: "poll question must be non-empty" })!;
    const { text: question, entities: questionEntities } = await formatText(
      ctx.app,
      rawQuestion,
      ctx.params.str("question_parse_mode"),
      ctx.params.json("question_entities"),
    );
    if (question === "") throw badRequest("poll question must be non-empty");
    if (question.length > 300) throw badRequest("question is too long (maximum 300)");
    const options = await pollOptions(ctx.app, ctx.params.json("options", { required: true }));
    const type = ctx.params.str("type") ?? "regular";
    if (type !== "regular" && type !== "quiz") throw badRequest("poll type must be regular or quiz");
    const multiple = ctx.params.bool("allows_multiple_answers") === true;
    const poll: Record<string, unknown> = {
      id: randomToken(12),
      question,
      question_entities: questionEntities.length ? questionEntities : undefined,
      options,
      is_closed: ctx.params.bool("is_closed") === true,
      is_anonymous: ctx.params.bool("is_anonymous") ?? true,
      type,
      allows_multiple_answers: type === "quiz" ? false : multiple,
      // a quiz answer is final unless the bot says otherwise; a regular vote can be taken back
      allows_revoting: ctx.params.bool("allows_revoting") ?? type !== "quiz",
      ...closing(ctx),
    };
    if (type === "quiz") {
      if (multiple) throw badRequest("quiz poll can't allow multiple answers");
      // correct_option_ids is the newer form; quizzes here have one correct option
      const ids = ctx.params.json("correct_option_ids");
      let correct = ctx.params.int("correct_option_id");
      if (ids !== undefined) {
        if (!Array.isArray(ids) || ids.length !== 1 || !Number.isSafeInteger(ids[0]))
          throw badRequest("quiz poll must have exactly one correct option");
        correct = ids[0] as number;
      }
      if (correct === undefined) throw badRequest("correct_option_id is empty");
      if (correct < 0 || correct >= options.length) throw badRequest("wrong correct option id specified");
      poll.correct_option_id = correct;
      poll.correct_option_ids = [correct];
      if (ctx.params.has("explanation")) {
        const explanation = await formatText(
          ctx.app,
          ctx.params.str("explanation")!,
          ctx.params.str("explanation_parse_mode"),
          ctx.params.json("explanation_entities"),
        );
        if (explanation.text.length > 200) throw badRequest("explanation length must not exceed 200");
        poll.explanation = explanation.text;
        if (explanation.entities.length) poll.explanation_entities = explanation.entities;
      }
    }
    return post(ctx, view, { content: "", extra: { poll } });
  },

  async sendDice(ctx) {
    const view = await resolveChat(ctx);
    const emoji = ctx.params.str("emoji") ?? "🎲";
    const max = DICE[emoji];
    if (!max) throw badRequest("emoji must be one of 🎲 🎯 🎳 🏀 ⚽ 🎰");
    return post(ctx, view, { content: "", extra: { dice: { emoji, value: randomInt(1, max + 1) } } });
  },

  async sendChatAction(ctx) {
    const view = await resolveChat(ctx, "chat_id", false);
    // any action shows "typing"; it only has to be text when given
    ctx.params.str("action");
    if (view.other && (await isBlockedEitherWay(ctx.app.db, ctx.me.id, view.other.id))) throw blockedByUser();
    await typing(ctx.app, { conversationId: view.conversation.id, userId: ctx.me.id });
    return true;
  },

  async forwardMessage(ctx) {
    const target = await resolveChat(ctx);
    return (await serializeMessages(ctx.app.db, target, [await forwardOne(ctx, target)]))[0];
  },

  async copyMessage(ctx) {
    const target = await resolveChat(ctx);
    return { message_id: await copyOne(ctx, target) };
  },

  /** Returns the MessageIds of the forwards; messages that cannot be found or forwarded are skipped. */
  async forwardMessages(ctx) {
    const target = await resolveChat(ctx);
    ctx.params.chatRef("from_chat_id");
    const out = [];
    for (const seq of messageIds(ctx)) {
      const row = await skipUnavailable(() => forwardOne(ctx, target, seq));
      if (row) out.push({ message_id: row.seq });
    }
    return out;
  },

  /** Returns the MessageIds of the copies; messages that cannot be found or copied are skipped. */
  async copyMessages(ctx) {
    const target = await resolveChat(ctx);
    ctx.params.chatRef("from_chat_id");
    const out = [];
    for (const seq of messageIds(ctx)) {
      const id = await skipUnavailable(() => copyOne(ctx, target, seq));
      if (id !== null) out.push({ message_id: id });
    }
    return out;
  },
} satisfies MethodTable;

/** Forwards message_id (or SEQ) into TARGET with its author shown. */
async function forwardOne(ctx: BotContext, target: ChatView, seq?: number): Promise<MessageRow> {
  const { source, row } = await sourceMessage(ctx, target, "forward", seq);
  return asBot(
    () =>
      forwardMessage(ctx.app, {
        fromConversationId: source.conversation.id,
        seq: row.seq,
        actorId: ctx.me.id,
        toConversationId: target.conversation.id,
      }),
    {
      400: () => badRequest("message can't be forwarded"),
      403: () => blockedByUser(),
      404: () => badRequest("message to forward not found"),
    },
  );
}

/** Copies message_id (or SEQ) into TARGET without its author; a new caption applies to media. */
async function copyOne(ctx: BotContext, target: ChatView, seq?: number): Promise<number> {
  const { row } = await sourceMessage(ctx, target, "copy", seq);
  let content = row.content;
  let entities: unknown[] | undefined = row.entities ? (JSON.parse(row.entities) as unknown[]) : undefined;
  // a new caption applies to media; a text message is copied as it is
  if (row.media !== null && ctx.params.given("caption")) {
    const caption = await captionOf(ctx.app, ctx.params);
    content = caption.text;
    entities = caption.entities;
  }
  const extra = row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : null;
  if (extra) delete extra.media_group_id;
  // a copied poll is a new poll: its own id and votes, open again
  if (extra?.poll) extra.poll = { ...(extra.poll as object), id: randomToken(12), is_closed: false };
  const sent = await post(ctx, target, {
    content,
    entities,
    media: row.media ? (JSON.parse(row.media) as MediaItem[]) : undefined,
    extra,
  });
  return sent.message_id as number;
}

/** The batch methods skip a message that is missing or cannot be forwarded/copied (a 400), and stop on anything else. */
async function skipUnavailable<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status === 400) return null;
    throw err;
  }
}
