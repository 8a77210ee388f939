import { t, type TSchema } from "elysia";
import botApiGuide from "../../docs/bot-api.md" with { type: "text" };
import { VERSION } from "../config/layout";
import { DESCRIPTION_MAX, SHORT_DESCRIPTION_MAX } from "../domain/bots/service";
import { MAX_GROUP_DESCRIPTION } from "../domain/chats/members";
import { MAX_GROUP_TITLE } from "../domain/chats/validate";
import { INVOICE_LIMITS } from "../domain/payments/invoices";
import { DISPLAY_NAME_MAX } from "../domain/profiles/edit";
import { BOT_FILE_LIMITS } from "../media/kinds";
import { BOT_METHODS } from "./dispatcher";
import { refusalOf, unsupportedMethods } from "./methods/unsupported";
import { MAX_CAPTION, MAX_TEXT } from "./text";

/*
 * The Bot API reference (/api/bot-openapi.json, rendered at /api/bot-docs): one operation per
 * method of BOT_METHODS. Each supported method's parameters and limits are listed below; the type
 * of the table makes tsc fail when a method is added to BOT_METHODS without them, and the limits
 * are the constants the methods check. Methods the product cannot back are described from their
 * refusal in methods/unsupported.ts.
 */

type Supported = Exclude<keyof typeof BOT_METHODS, keyof typeof unsupportedMethods>;

interface MethodDoc {
  summary: string;
  /** parameters by name; required ones are not t.Optional */
  params?: Record<string, TSchema>;
  returns: string;
  notes?: string;
}

const MB = 1024 * 1024;
const opt = t.Optional;
const ChatId = t.Union([t.Integer(), t.String()], {
  description: "a person's id or @username, or a group's (negative) id",
});
const UserId = t.Integer({ description: "a person's id" });
const MessageId = t.Integer({ description: "message_id in the chat" });
const Json = (description: string) => t.Unknown({ description: `${description} (JSON, or JSON text in a form)` });
const Markup = opt(
  Json("InlineKeyboardMarkup: up to 100 rows of 8 buttons; text ≤ 128, callback_data ≤ 64 bytes, url ≤ 512"),
);
const ParseMode = opt(t.String({ description: "HTML, Markdown or MarkdownV2" }));
const Flag = opt(t.Boolean({ description: "accepted; no effect here" }));
const LinkPreviewOptions = {
  link_preview_options: opt(
    Json(
      "LinkPreviewOptions {is_disabled?, url?, prefer_small_media?, prefer_large_media?, show_above_text?}: is_disabled leaves people without the preview card, url previews that link instead of the text's first; answered back in the Message",
    ),
  ),
  disable_web_page_preview: opt(t.Boolean({ description: "older form of link_preview_options.is_disabled" })),
};
const ReplyParameters = opt(Json("ReplyParameters {message_id, allow_sending_without_reply?}"));
const InputFile = (limit: number, what: string) =>
  t.Union(
    [
      t.String({ description: "an https:// URL, or a file URL of this instance (file_id)" }),
      t.String({ format: "binary" }),
    ],
    {
      description: `${what}: a multipart upload, a URL to download, or a file_id (up to ${limit / MB} MB)`,
    },
  );

const sending = (params: Record<string, TSchema>) => ({
  chat_id: ChatId,
  ...params,
  disable_notification: Flag,
  protect_content: Flag,
  reply_parameters: ReplyParameters,
  reply_markup: Markup,
});
const caption = {
  caption: opt(t.String({ maxLength: MAX_CAPTION })),
  parse_mode: ParseMode,
  caption_entities: opt(Json("Array of MessageEntity")),
  has_spoiler: opt(t.Boolean()),
};
const sendFile = (field: string, limit: number, what: string, extra: Record<string, TSchema> = {}): MethodDoc => ({
  summary: `Send ${what}`,
  params: sending({ [field]: InputFile(limit, what), ...caption, ...extra }),
  returns: "Message",
});
const chatOnly = { chat_id: ChatId };
const messageRef = { chat_id: ChatId, message_id: MessageId };
const Commands = {
  scope: opt(Json("BotCommandScope")),
  language_code: opt(t.String({ description: "two-letter code; each language keeps its own value" })),
};

/** The terms of an invoice: sendInvoice's and createInvoiceLink's. */
const INVOICE_PARAMS = {
  title: t.String({ minLength: 1, maxLength: INVOICE_LIMITS.title }),
  description: opt(t.String({ maxLength: INVOICE_LIMITS.description })),
  payload: t.String({ minLength: 1, maxLength: INVOICE_LIMITS.payload }),
  currency: opt(t.Literal("XTR")),
  prices: Json(
    `Array of LabeledPrice {label ≤ ${INVOICE_LIMITS.label}, amount}, up to ${INVOICE_LIMITS.maxPrices}; total at most ${INVOICE_LIMITS.maxTotal} stars`,
  ),
};

const METHOD_DOCS: Record<Supported, MethodDoc> = {
  getMe: { summary: "The bot's own User", returns: "User" },
  setMyCommands: {
    summary: "Set the command list shown to people",
    params: {
      commands: Json("Array of BotCommand {command: 1–32 of [a-z0-9_], description: 1–256}, up to 100"),
      ...Commands,
    },
    returns: "True",
  },
  getMyCommands: { summary: "The command list", params: Commands, returns: "Array of BotCommand" },
  deleteMyCommands: { summary: "Remove the command list", params: Commands, returns: "True" },
  setMyDescription: {
    summary: "Set the description shown in an empty chat with the bot",
    params: { description: opt(t.String({ maxLength: DESCRIPTION_MAX })), language_code: Commands.language_code },
    returns: "True",
  },
  getMyDescription: {
    summary: "The description",
    params: { language_code: Commands.language_code },
    returns: "BotDescription",
  },
  setMyShortDescription: {
    summary: "Set the short description shown on the bot's card",
    params: {
      short_description: opt(t.String({ maxLength: SHORT_DESCRIPTION_MAX })),
      language_code: Commands.language_code,
    },
    returns: "True",
  },
  getMyShortDescription: {
    summary: "The short description",
    params: { language_code: Commands.language_code },
    returns: "BotShortDescription",
  },
  setMyName: {
    summary: "Rename the bot (without language_code: getMe's first_name)",
    params: { name: opt(t.String({ maxLength: DISPLAY_NAME_MAX })), language_code: Commands.language_code },
    returns: "True",
  },
  getMyName: { summary: "The bot's name", params: { language_code: Commands.language_code }, returns: "BotName" },
  setChatMenuButton: {
    summary: "Set the menu button beside a person's input (default, or for one private chat)",
    params: { chat_id: opt(ChatId), menu_button: opt(Json("MenuButton: commands, web_app or default")) },
    returns: "True",
  },
  getChatMenuButton: { summary: "The menu button", params: { chat_id: opt(ChatId) }, returns: "MenuButton" },
  setMyDefaultAdministratorRights: {
    summary: "The rights the bot asks for when made an administrator (kept and answered back)",
    params: { rights: opt(Json("ChatAdministratorRights; omitted clears them")), for_channels: opt(t.Boolean()) },
    returns: "True",
  },
  getMyDefaultAdministratorRights: {
    summary: "The rights set by setMyDefaultAdministratorRights, every one named",
    params: { for_channels: opt(t.Boolean()) },
    returns: "ChatAdministratorRights",
  },
  close: { summary: "Does nothing (there is one server)", returns: "True" },
  logOut: { summary: "Does nothing (there is one server)", returns: "True" },
  getUpdates: {
    summary: "Long-poll for updates (refused while a webhook is set)",
    params: {
      offset: opt(t.Integer({ description: "the last update_id + 1 confirms what came before" })),
      limit: opt(t.Integer({ minimum: 1, maximum: 100, default: 100 })),
      timeout: opt(t.Integer({ minimum: 0, description: "seconds to wait, at most 25" })),
      allowed_updates: opt(Json("Array of String: accepted, every kind is delivered")),
    },
    returns: "Array of Update",
  },
  setWebhook: {
    summary: "Deliver updates by POST to an https URL (one at a time, retried with backoff)",
    params: {
      url: t.String({ maxLength: 512, description: "https only; no loopback or private addresses unless allowed" }),
      secret_token: opt(t.String({ maxLength: 128, description: "sent as X-Telegram-Bot-Api-Secret-Token" })),
      drop_pending_updates: opt(t.Boolean()),
    },
    returns: "True",
  },
  deleteWebhook: {
    summary: "Stop webhook delivery",
    params: { drop_pending_updates: opt(t.Boolean()) },
    returns: "True",
  },
  getWebhookInfo: { summary: "The webhook and its last error", returns: "WebhookInfo (pending_update_count is 0)" },
  sendMessage: {
    summary: "Send a text message",
    params: sending({
      text: t.String({ minLength: 1, maxLength: MAX_TEXT }),
      parse_mode: ParseMode,
      entities: opt(Json("Array of MessageEntity")),
      ...LinkPreviewOptions,
    }),
    returns: "Message",
  },
  sendPhoto: sendFile("photo", BOT_FILE_LIMITS["chat-image"], "a photo"),
  sendVideo: sendFile("video", BOT_FILE_LIMITS["chat-video"], "a video", { duration: opt(t.Integer({ minimum: 0 })) }),
  sendAnimation: sendFile("animation", BOT_FILE_LIMITS["chat-video"], "a GIF or silent video"),
  sendVoice: sendFile("voice", BOT_FILE_LIMITS["chat-voice"], "a voice message", {
    duration: opt(t.Integer({ minimum: 0 })),
  }),
  sendVideoNote: sendFile("video_note", BOT_FILE_LIMITS["chat-video"], "a round video message"),
  sendDocument: sendFile("document", BOT_FILE_LIMITS["chat-file"], "a file", {
    file_name: opt(t.String({ maxLength: 255, description: "the name the receiver sees" })),
  }),
  sendAudio: sendFile("audio", BOT_FILE_LIMITS["chat-file"], "an audio file (shown as a document)", {
    performer: opt(t.String({ maxLength: 64 })),
    title: opt(t.String({ maxLength: 64 })),
    duration: opt(t.Integer({ minimum: 0 })),
    file_name: opt(t.String({ maxLength: 255 })),
  }),
  sendSticker: sendFile("sticker", BOT_FILE_LIMITS["chat-image"], "a sticker (an image without a bubble)"),
  sendMediaGroup: {
    summary: "Send 2 to 10 photos, videos, documents or audios as one album (one message per item)",
    params: {
      chat_id: ChatId,
      media: Json("Array of InputMedia {type: photo|video|document|audio, media, caption?, has_spoiler?}, 2 to 10"),
      disable_notification: Flag,
      reply_parameters: ReplyParameters,
    },
    returns: "Array of Message",
  },
  sendLocation: {
    summary: "Send a point on the map",
    params: sending({
      latitude: t.Number({ minimum: -90, maximum: 90 }),
      longitude: t.Number({ minimum: -180, maximum: 180 }),
      address: opt(t.String({ maxLength: 200 })),
      live_period: opt(t.Integer({ description: "60–86400 s, or 2147483647 until stopped: a live location" })),
    }),
    returns: "Message",
  },
  sendContact: {
    summary: "Send a contact card",
    params: sending({
      phone_number: t.String({ minLength: 1, maxLength: 64 }),
      first_name: t.String({ minLength: 1, maxLength: 64 }),
      last_name: opt(t.String({ maxLength: 64 })),
      vcard: opt(t.String({ maxLength: 2048 })),
    }),
    returns: "Message",
  },
  sendVenue: {
    summary: "Send a place",
    params: sending({
      latitude: t.Number({ minimum: -90, maximum: 90 }),
      longitude: t.Number({ minimum: -180, maximum: 180 }),
      title: t.String({ minLength: 1, maxLength: 120 }),
      address: opt(t.String({ maxLength: 200 })),
      foursquare_id: opt(t.String({ maxLength: 256 })),
      foursquare_type: opt(t.String({ maxLength: 256 })),
      google_place_id: opt(t.String({ maxLength: 256 })),
      google_place_type: opt(t.String({ maxLength: 256 })),
    }),
    returns: "Message",
  },
  sendPoll: {
    summary: "Send a poll or a quiz",
    params: sending({
      question: t.String({ minLength: 1, maxLength: 300 }),
      options: Json("2 to 12 options: String or InputPollOption, 1 to 100 characters each"),
      is_anonymous: opt(t.Boolean({ default: true })),
      allows_multiple_answers: opt(t.Boolean()),
      type: opt(t.String({ description: "regular or quiz" })),
      correct_option_id: opt(t.Integer({ description: "required for a quiz" })),
      explanation: opt(t.String()),
      question_parse_mode: ParseMode,
      is_closed: opt(t.Boolean()),
    }),
    returns: "Message",
  },
  sendDice: {
    summary: "Roll a die drawn on the server",
    params: sending({ emoji: opt(t.String({ description: "🎲 🎯 🎳 (1–6), 🏀 ⚽ (1–5), 🎰 (1–64)" })) }),
    returns: "Message",
  },
  sendChatAction: {
    summary: "Show a typing indicator (any action shows typing)",
    params: { chat_id: ChatId, action: opt(t.String()) },
    returns: "True",
  },
  forwardMessage: {
    summary: "Forward a message with its author shown",
    params: { chat_id: ChatId, from_chat_id: opt(ChatId), message_id: MessageId, disable_notification: Flag },
    returns: "Message",
  },
  copyMessage: {
    summary: "Copy a message without its author",
    params: {
      chat_id: ChatId,
      from_chat_id: opt(ChatId),
      message_id: MessageId,
      caption: caption.caption,
      reply_markup: Markup,
    },
    returns: "MessageId",
  },
  forwardMessages: {
    summary: "Forward several messages (missing ids are skipped)",
    params: { chat_id: ChatId, from_chat_id: ChatId, message_ids: Json("Array of Integer, 1 to 100") },
    returns: "Array of MessageId",
  },
  copyMessages: {
    summary: "Copy several messages (missing ids are skipped)",
    params: { chat_id: ChatId, from_chat_id: ChatId, message_ids: Json("Array of Integer, 1 to 100") },
    returns: "Array of MessageId",
  },
  editMessageText: {
    summary: "Edit the text of the bot's message (omitting reply_markup keeps the buttons, null removes them)",
    params: {
      ...messageRef,
      text: t.String({ minLength: 1, maxLength: MAX_TEXT }),
      parse_mode: ParseMode,
      entities: opt(Json("Array of MessageEntity")),
      ...LinkPreviewOptions,
      reply_markup: Markup,
    },
    returns: "Message",
  },
  editMessageCaption: {
    summary: "Edit the caption of the bot's message",
    params: {
      ...messageRef,
      caption: t.String({ minLength: 1, maxLength: MAX_TEXT }),
      parse_mode: ParseMode,
      caption_entities: opt(Json("Array of MessageEntity")),
      reply_markup: Markup,
    },
    returns: "Message",
  },
  editMessageMedia: {
    summary: "Replace the attachment of the bot's message (a text message may get one; an album item keeps its kind)",
    params: {
      ...messageRef,
      media: Json(
        "InputMedia {type: photo, video, animation, audio or document; media: a URL, a file_id or attach://<field>; caption ≤ " +
          MAX_CAPTION +
          ", parse_mode, caption_entities, has_spoiler}",
      ),
      reply_markup: Markup,
    },
    returns: "Message",
  },
  editMessageLiveLocation: {
    summary: "Move a live location the bot sent, until it is stopped or its live_period ends",
    params: {
      ...messageRef,
      latitude: t.Number({ minimum: -90, maximum: 90 }),
      longitude: t.Number({ minimum: -180, maximum: 180 }),
    },
    returns: "Message",
  },
  stopMessageLiveLocation: {
    summary: "Stop a live location: it stays where it was last moved to",
    params: messageRef,
    returns: "Message",
  },
  stopPoll: {
    summary: "Close a poll the bot sent; people can no longer vote",
    params: { ...messageRef, reply_markup: Markup },
    returns: "Poll",
  },
  editMessageReplyMarkup: {
    summary: "Replace or remove the buttons of the bot's message",
    params: { ...messageRef, reply_markup: Markup },
    returns: "Message",
  },
  deleteMessage: { summary: "Delete a message", params: messageRef, returns: "True" },
  deleteMessages: {
    summary: "Delete several messages (missing ids are skipped)",
    params: { chat_id: ChatId, message_ids: Json("Array of Integer, 1 to 100") },
    returns: "True",
  },
  unpinAllChatMessages: { summary: "Unpin every message of a chat", params: chatOnly, returns: "True" },
  pinChatMessage: { summary: "Pin a message", params: { ...messageRef, disable_notification: Flag }, returns: "True" },
  unpinChatMessage: { summary: "Unpin a message", params: messageRef, returns: "True" },
  setMessageReaction: {
    summary: "Set the bot's reaction to a message (one per message; an empty list removes it)",
    params: { ...messageRef, reaction: opt(Json("Array of ReactionType {type: emoji, emoji}")) },
    returns: "True",
  },
  answerCallbackQuery: {
    summary: "Answer a button press (every press; the id lives one minute)",
    params: {
      callback_query_id: t.String({ maxLength: 64 }),
      text: opt(t.String({ maxLength: 200 })),
      show_alert: opt(t.Boolean()),
      url: opt(t.String({ maxLength: 512 })),
    },
    returns: "True",
  },
  getChat: { summary: "A chat (for a private chat: the other party)", params: chatOnly, returns: "ChatFullInfo" },
  getChatMemberCount: { summary: "How many members, the bot included", params: chatOnly, returns: "Integer" },
  getChatMember: {
    summary: "A member of a chat",
    params: { chat_id: ChatId, user_id: t.Union([t.Integer(), t.String()], { description: "id or @username" }) },
    returns: "ChatMember",
  },
  getChatAdministrators: {
    summary: "The owner and administrators of a group",
    params: chatOnly,
    returns: "Array of ChatMember",
  },
  banChatMember: {
    summary: "Remove a member (they may return by invitation: there is no ban list)",
    params: { chat_id: ChatId, user_id: UserId, until_date: opt(t.Integer()), revoke_messages: opt(t.Boolean()) },
    returns: "True",
  },
  unbanChatMember: {
    summary: "Accepted for compatibility: there is no ban list",
    params: { chat_id: ChatId, user_id: UserId, only_if_banned: opt(t.Boolean()) },
    returns: "True",
  },
  promoteChatMember: {
    summary: "Make a member an administrator (any true can_* flag) or a member again",
    params: {
      chat_id: ChatId,
      user_id: UserId,
      ...Object.fromEntries(
        [
          "can_manage_chat",
          "can_delete_messages",
          "can_restrict_members",
          "can_invite_users",
          "can_pin_messages",
          "can_promote_members",
          "can_change_info",
        ].map((flag) => [flag, opt(t.Boolean())]),
      ),
    },
    returns: "True",
  },
  setChatTitle: {
    summary: "Rename a group",
    params: { chat_id: ChatId, title: t.String({ minLength: 1, maxLength: MAX_GROUP_TITLE }) },
    returns: "True",
  },
  setChatDescription: {
    summary: "Set or clear a group's description (needs can_change_info)",
    params: { chat_id: ChatId, description: opt(t.String({ maxLength: MAX_GROUP_DESCRIPTION })) },
    returns: "True",
  },
  setChatPhoto: {
    summary: "Set a group's photo",
    params: { chat_id: ChatId, photo: InputFile(BOT_FILE_LIMITS["chat-image"], "an image") },
    returns: "True",
  },
  deleteChatPhoto: { summary: "Remove a group's photo", params: chatOnly, returns: "True" },
  leaveChat: { summary: "Leave a group", params: chatOnly, returns: "True" },
  exportChatInviteLink: {
    summary: "A new invite link (the previous one stops working)",
    params: chatOnly,
    returns: "String",
  },
  createChatInviteLink: {
    summary: "A new invite link (a group has one: the previous one stops working; no join requests)",
    params: {
      chat_id: ChatId,
      name: opt(t.String({ maxLength: 32 })),
      expire_date: opt(t.Integer()),
      member_limit: opt(t.Integer({ minimum: 1, maximum: 99999 })),
      creates_join_request: opt(t.Boolean()),
    },
    returns: "ChatInviteLink",
  },
  editChatInviteLink: {
    summary: "The group's invite link, its name echoed (links have no expiry or limit here)",
    params: { chat_id: ChatId, invite_link: t.String(), name: opt(t.String({ maxLength: 32 })) },
    returns: "ChatInviteLink",
  },
  revokeChatInviteLink: {
    summary: "Revoke the group's invite link: a new one replaces it",
    params: { chat_id: ChatId, invite_link: t.String() },
    returns: "ChatInviteLink",
  },
  getUserProfilePhotos: {
    summary: "A person's profile photos (the avatar)",
    params: {
      user_id: UserId,
      offset: opt(t.Integer({ minimum: 0 })),
      limit: opt(t.Integer({ minimum: 1, maximum: 100 })),
    },
    returns: "UserProfilePhotos",
  },
  sendInvoice: {
    summary: "Send an invoice payable in stars",
    params: sending({ ...INVOICE_PARAMS, start_parameter: opt(t.String({ maxLength: 64 })) }),
    returns: "Message",
  },
  createInvoiceLink: {
    summary: "A link to an invoice payable in stars: whoever opens it in the app may pay it, each payment its own",
    params: INVOICE_PARAMS,
    returns: "String",
  },
  answerPreCheckoutQuery: {
    summary: "Accept or decline a payment within 10 seconds of pre_checkout_query",
    params: {
      pre_checkout_query_id: t.String({ maxLength: 128 }),
      ok: t.Boolean(),
      error_message: opt(t.String({ maxLength: 255, description: "required when ok is false" })),
    },
    returns: "True",
  },
  refundStarPayment: {
    summary: "Refund a payment while its income is held",
    params: { user_id: UserId, telegram_payment_charge_id: t.String({ maxLength: 128 }) },
    returns: "True",
  },
  getFile: {
    summary: "A File whose file_path downloads from /file/bot<token>/<file_path> (file_id is already a URL)",
    params: { file_id: t.String() },
    returns: "File",
  },
};

const ERRORS: Record<number, string> = {
  400: "Bad Request: the description names the parameter",
  401: "Unauthorized: the token is not valid",
  403: "Forbidden: the bot is disabled or blocked, or may not act in the chat",
  404: "Not Found: no such method, chat or message",
  429: "Too Many Requests: retry after parameters.retry_after seconds",
};

const Failure = {
  type: "object",
  required: ["ok", "error_code", "description"],
  properties: {
    ok: { const: false },
    error_code: { type: "integer", description: "equals the HTTP status" },
    description: { type: "string" },
    parameters: { type: "object", properties: { retry_after: { type: "integer" } } },
  },
};

const operation = (name: string, summary: string, description: string, params: Record<string, TSchema>) => {
  const schema = t.Object(params);
  return {
    operationId: name,
    summary,
    description,
    tags: [name in unsupportedMethods ? "not backed here" : "methods"],
    parameters: [
      { name: "token", in: "path", required: true, schema: { type: "string" }, description: "the bot's token" },
    ],
    ...(Object.keys(params).length
      ? {
          requestBody: {
            required: false,
            content: {
              "application/json": { schema },
              "application/x-www-form-urlencoded": { schema },
              "multipart/form-data": { schema },
            },
          },
        }
      : {}),
    responses: {
      200: {
        description: "ok",
        content: {
          "application/json": {
            schema: { type: "object", required: ["ok", "result"], properties: { ok: { const: true }, result: {} } },
          },
        },
      },
      ...Object.fromEntries(
        Object.entries(ERRORS).map(([status, text]) => [
          status,
          { description: text, content: { "application/json": { schema: { $ref: "#/components/schemas/Failure" } } } },
        ]),
      ),
    },
  };
};

/**
 * What differs from the Telegram Bot API: the "Differences from Telegram" section of docs/bot-api.md,
 * embedded (that guide is its one copy), up to the next heading.
 */
export function telegramDifferences(text = botApiGuide): string {
  const heading = "## Differences from Telegram\n";
  const start = text.indexOf(heading);
  if (start < 0) throw new Error("docs/bot-api.md has no ## Differences from Telegram section");
  const body = text.slice(start + heading.length);
  const end = body.search(/^#/m);
  return (end < 0 ? body : body.slice(0, end)).trim();
}

/** The OpenAPI 3.1 document of the Bot API: every method of BOT_METHODS; CALLS_PER_MINUTE is the per-token limit. */
export function botApiDocument(callsPerMinute: number, newChatsPerHour: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const name of Object.keys(BOT_METHODS) as Array<keyof typeof BOT_METHODS>) {
    const documented = (METHOD_DOCS as Partial<Record<string, MethodDoc>>)[name];
    const op = documented
      ? operation(
          name,
          documented.summary,
          `Returns ${documented.returns}.${documented.notes ? ` ${documented.notes}` : ""}`,
          documented.params ?? {},
        )
      : operation(
          name,
          "Not backed by this server",
          `Always answers 400 \`Bad Request: ${refusalOf(BOT_METHODS[name])}\`, as the compatible API answers a bot without such an object.`,
          {},
        );
    paths[`/api/bot/{token}/${name}`] = { post: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "socialctl Bot API",
      version: VERSION,
      description: `A Telegram-compatible Bot API: bots written for grammY, Telegraf, node-telegram-bot-api or
python-telegram-bot run against this instance by changing only their API root. Parameters may be sent as a
query string, JSON, urlencoded or multipart form; method names are matched case-insensitively and unknown
parameters are ignored; GET works as well as POST. \`/api/bot<token>/<method>\` and \`/bot<token>/<method>\` (what the
libraries build) work too. Every answer is \`{ok: true, result}\` or \`{ok: false, error_code, description}\`.

**Limits.** ${callsPerMinute} calls a minute per token (429 with \`parameters.retry_after\`);
${newChatsPerHour} new chats an hour opened by writing first to people (429 likewise; a person may refuse bots writing first: 403); files: images
${BOT_FILE_LIMITS["chat-image"] / MB} MB, voice ${BOT_FILE_LIMITS["chat-voice"] / MB} MB, video and documents
${BOT_FILE_LIMITS["chat-file"] / MB} MB; text ${MAX_TEXT} characters, captions ${MAX_CAPTION}; getUpdates waits at most 25 s.

**Differences from the Telegram Bot API**

${telegramDifferences()}`,
    },
    tags: [{ name: "methods" }, { name: "not backed here" }],
    paths,
    components: {
      schemas: { Failure },
    },
  };
}
