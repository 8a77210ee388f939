import { expect, test } from "bun:test";
import type {
  BotCommand,
  ChatFullInfo,
  ChatMember,
  Message,
  Poll,
  BotDescription,
  BotName,
  BotShortDescription,
  ChatInviteLink,
  File,
  MenuButton,
  MessageId,
  UserFromGetMe,
  UserProfilePhotos,
  WebhookInfo,
} from "@grammyjs/types";
import { BOT_METHODS } from "./dispatcher";

/*
 * Type-level test: each method's result, as its handler is typed, must be assignable to the
 * shape @grammyjs/types (the reference typings of the compatible API) gives it, so a required
 * field that goes missing fails `npm test`'s typecheck. Message results are typed by the
 * serializer's BotMessage (stored JSON is cast to the shapes the sending methods checked) and
 * also checked at run time by the library tests (grammY, Telegraf, node-telegram-bot-api,
 * python-telegram-bot).
 */
type ResultOf<M extends keyof typeof BOT_METHODS> = Awaited<ReturnType<(typeof BOT_METHODS)[M]>>;
/** Resolves to true only when ACTUAL conforms to REFERENCE; otherwise the use below does not compile. */
type Conforms<Actual extends Reference, Reference> = Actual extends Reference ? true : never;

const conforming = {
  getMe: true satisfies Conforms<ResultOf<"getMe">, UserFromGetMe>,
  getMyCommands: true satisfies Conforms<ResultOf<"getMyCommands">, BotCommand[]>,
  getMyDescription: true satisfies Conforms<ResultOf<"getMyDescription">, BotDescription>,
  getMyShortDescription: true satisfies Conforms<ResultOf<"getMyShortDescription">, BotShortDescription>,
  getMyName: true satisfies Conforms<ResultOf<"getMyName">, BotName>,
  // allowed_updates echoes what the bot asked for, names this server never emits included
  getWebhookInfo: true satisfies Conforms<
    ResultOf<"getWebhookInfo">,
    Omit<WebhookInfo, "allowed_updates"> & { allowed_updates?: string[] }
  >,
  getFile: true satisfies Conforms<ResultOf<"getFile">, File>,
  getChatMenuButton: true satisfies Conforms<ResultOf<"getChatMenuButton">, MenuButton>,
  createChatInviteLink: true satisfies Conforms<ResultOf<"createChatInviteLink">, ChatInviteLink>,
  exportChatInviteLink: true satisfies Conforms<ResultOf<"exportChatInviteLink">, string>,
  getUserProfilePhotos: true satisfies Conforms<ResultOf<"getUserProfilePhotos">, UserProfilePhotos>,
  copyMessage: true satisfies Conforms<ResultOf<"copyMessage">, MessageId>,
  forwardMessages: true satisfies Conforms<ResultOf<"forwardMessages">, MessageId[]>,
  copyMessages: true satisfies Conforms<ResultOf<"copyMessages">, MessageId[]>,
  getChatMemberCount: true satisfies Conforms<ResultOf<"getChatMemberCount">, number>,
  getChat: true satisfies Conforms<ResultOf<"getChat">, ChatFullInfo>,
  getChatMember: true satisfies Conforms<ResultOf<"getChatMember">, ChatMember>,
  getChatAdministrators: true satisfies Conforms<ResultOf<"getChatAdministrators">, ChatMember[]>,
  stopPoll: true satisfies Conforms<ResultOf<"stopPoll">, Poll>,
  sendMessage: true satisfies Conforms<ResultOf<"sendMessage">, Message>,
  sendPhoto: true satisfies Conforms<ResultOf<"sendPhoto">, Message>,
  sendAudio: true satisfies Conforms<ResultOf<"sendAudio">, Message>,
  sendPoll: true satisfies Conforms<ResultOf<"sendPoll">, Message>,
  sendMediaGroup: true satisfies Conforms<ResultOf<"sendMediaGroup">, Message[]>,
  sendInvoice: true satisfies Conforms<ResultOf<"sendInvoice">, Message>,
  createInvoiceLink: true satisfies Conforms<ResultOf<"createInvoiceLink">, string>,
  forwardMessage: true satisfies Conforms<ResultOf<"forwardMessage">, Message>,
  editMessageText: true satisfies Conforms<ResultOf<"editMessageText">, Message>,
  editMessageCaption: true satisfies Conforms<ResultOf<"editMessageCaption">, Message>,
  editMessageMedia: true satisfies Conforms<ResultOf<"editMessageMedia">, Message>,
  editMessageReplyMarkup: true satisfies Conforms<ResultOf<"editMessageReplyMarkup">, Message>,
};

test("results conform to @grammyjs/types (checked by the typecheck)", () => {
  expect(Object.values(conforming).every((ok) => ok === true)).toBe(true);
});
