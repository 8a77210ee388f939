import type { App } from "../app";
import type { BotWithUser } from "../domain/bots/service";
import type { BotMethod, MethodTable } from "./context";
import { botError } from "./errors";
import type { Params } from "./params";
import { profileMethods as profile } from "./methods/profile";
import { updatesMethods as updates } from "./methods/updates";
import { sendMethods as send } from "./methods/send";
import { editMethods as edit } from "./methods/edit";
import { callbackMethods as callbacks } from "./methods/callbacks";
import { chatMethods as chats } from "./methods/chats";
import { paymentMethods as payments } from "./methods/payments";
import { fileMethods as files } from "./methods/files";
import { liveLocationMethods as liveLocations } from "./methods/locations";
import { unsupportedMethods as unsupported } from "./methods/unsupported";

/**
 * The Bot API's method table: every method name and its handler, by file. The compatible API
 * matches names case-insensitively, so lookups go through the lower-cased index below.
 */
export const BOT_METHODS = {
  // methods/profile.ts
  getMe: profile.getMe,
  setMyCommands: profile.setMyCommands,
  getMyCommands: profile.getMyCommands,
  deleteMyCommands: profile.deleteMyCommands,
  setMyDescription: profile.setMyDescription,
  getMyDescription: profile.getMyDescription,
  setMyShortDescription: profile.setMyShortDescription,
  getMyShortDescription: profile.getMyShortDescription,
  setMyName: profile.setMyName,
  getMyName: profile.getMyName,
  setChatMenuButton: profile.setChatMenuButton,
  getChatMenuButton: profile.getChatMenuButton,
  setMyDefaultAdministratorRights: profile.setMyDefaultAdministratorRights,
  getMyDefaultAdministratorRights: profile.getMyDefaultAdministratorRights,
  close: profile.close,
  logOut: profile.logOut,
  // methods/updates.ts
  getUpdates: updates.getUpdates,
  setWebhook: updates.setWebhook,
  deleteWebhook: updates.deleteWebhook,
  getWebhookInfo: updates.getWebhookInfo,
  // methods/send.ts
  sendMessage: send.sendMessage,
  sendPhoto: send.sendPhoto,
  sendVideo: send.sendVideo,
  sendAnimation: send.sendAnimation,
  sendVoice: send.sendVoice,
  sendVideoNote: send.sendVideoNote,
  sendDocument: send.sendDocument,
  sendAudio: send.sendAudio,
  sendSticker: send.sendSticker,
  sendMediaGroup: send.sendMediaGroup,
  sendLocation: send.sendLocation,
  sendVenue: send.sendVenue,
  sendContact: send.sendContact,
  sendPoll: send.sendPoll,
  sendDice: send.sendDice,
  sendChatAction: send.sendChatAction,
  forwardMessage: send.forwardMessage,
  copyMessage: send.copyMessage,
  forwardMessages: send.forwardMessages,
  copyMessages: send.copyMessages,
  // methods/edit.ts
  editMessageText: edit.editMessageText,
  editMessageCaption: edit.editMessageCaption,
  editMessageReplyMarkup: edit.editMessageReplyMarkup,
  editMessageMedia: edit.editMessageMedia,
  deleteMessage: edit.deleteMessage,
  deleteMessages: edit.deleteMessages,
  unpinAllChatMessages: edit.unpinAllChatMessages,
  pinChatMessage: edit.pinChatMessage,
  unpinChatMessage: edit.unpinChatMessage,
  setMessageReaction: edit.setMessageReaction,
  stopPoll: edit.stopPoll,
  // methods/locations.ts
  editMessageLiveLocation: liveLocations.editMessageLiveLocation,
  stopMessageLiveLocation: liveLocations.stopMessageLiveLocation,
  // methods/callbacks.ts
  answerCallbackQuery: callbacks.answerCallbackQuery,
  // methods/chats.ts
  getChat: chats.getChat,
  getChatMemberCount: chats.getChatMemberCount,
  getChatMember: chats.getChatMember,
  getChatAdministrators: chats.getChatAdministrators,
  banChatMember: chats.banChatMember,
  unbanChatMember: chats.unbanChatMember,
  promoteChatMember: chats.promoteChatMember,
  setChatTitle: chats.setChatTitle,
  setChatDescription: chats.setChatDescription,
  setChatPhoto: chats.setChatPhoto,
  deleteChatPhoto: chats.deleteChatPhoto,
  leaveChat: chats.leaveChat,
  exportChatInviteLink: chats.exportChatInviteLink,
  createChatInviteLink: chats.createChatInviteLink,
  editChatInviteLink: chats.editChatInviteLink,
  revokeChatInviteLink: chats.revokeChatInviteLink,
  getUserProfilePhotos: chats.getUserProfilePhotos,
  // methods/payments.ts
  sendInvoice: payments.sendInvoice,
  createInvoiceLink: payments.createInvoiceLink,
  answerPreCheckoutQuery: payments.answerPreCheckoutQuery,
  refundStarPayment: payments.refundStarPayment,
  // methods/files.ts
  getFile: files.getFile,
  // methods/unsupported.ts: families the product cannot back, answered in the compatible API's words
  ...unsupported,
} satisfies MethodTable;

const byLowerName = new Map<string, BotMethod>(
  Object.entries(BOT_METHODS).map(([name, fn]) => [name.toLowerCase(), fn]),
);
/** lower-cased name → the name as the compatible API spells it */
const nameByLowerName = new Map<string, string>(Object.keys(BOT_METHODS).map((name) => [name.toLowerCase(), name]));

/** The method's name as the API spells it ("sendmessage" → "sendMessage"), or null when there is no such method. */
export const canonicalMethodName = (name: string): string | null => nameByLowerName.get(name.toLowerCase()) ?? null;

/** Runs one Bot API method for a bot; unknown names are 404 "Not Found: method not found". */
export async function callBotMethod(
  app: App,
  found: BotWithUser,
  name: string,
  params: Params,
  signal?: AbortSignal,
): Promise<unknown> {
  const fn = byLowerName.get(name.toLowerCase());
  if (!fn) throw botError(404, "Not Found: method not found");
  return fn({ app, bot: found.bot, me: found.user, params, signal });
}
