import { expect, test } from "bun:test";
import type {
  BotCommand,
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
 * field that goes missing fails `npm test`'s typecheck. Message results are checked at run
 * time by the library tests (grammY, Telegraf, node-telegram-bot-api, python-telegram-bot).
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
};

test("results conform to @grammyjs/types (checked by the typecheck)", () => {
  expect(Object.values(conforming).every((ok) => ok === true)).toBe(true);
});
