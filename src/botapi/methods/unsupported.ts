import type { BotMethod, MethodTable } from "../context";
import { badRequest } from "../errors";

/**
 * Families the product cannot back (no inline mode, games, sticker sets, forum topics, business
 * accounts or passport). Each method answers what the compatible API answers a bot that has no
 * such object (an inline query id that is unknown, a sticker set that does not exist, a chat that
 * is not a forum...), so libraries raise their usual error instead of "method not found".
 */
/** What each method below answers, for the Bot API reference (src/botapi/reference.ts). */
const refusals = new WeakMap<BotMethod, string>();

const refuse = (reason: string): BotMethod => {
  const method: BotMethod = async () => {
    throw badRequest(reason);
  };
  refusals.set(method, reason);
  return method;
};

/** The 400 description a method of this table answers (undefined for a method that is not one of them). */
export const refusalOf = (method: BotMethod): string | undefined => refusals.get(method);

const QUERY_INVALID = refuse("query is too old and response timeout expired or query ID is invalid");
const STICKERSET_INVALID = refuse("STICKERSET_INVALID");
const NOT_A_FORUM = refuse("the chat is not a forum");
const GAME_INVALID = refuse("GAME_SHORT_NAME_INVALID");
/** The compatible server's words for an unknown business_connection_id (its CONNECTION_ID_INVALID). */
export const BUSINESS_CONNECTION_NOT_FOUND = "business connection not found";
const BUSINESS_INVALID = refuse(BUSINESS_CONNECTION_NOT_FOUND);

export const unsupportedMethods = {
  // inline mode
  answerInlineQuery: QUERY_INVALID,
  answerWebAppQuery: QUERY_INVALID,
  savePreparedInlineMessage: refuse("inline mode is not supported"),
  // games
  sendGame: GAME_INVALID,
  setGameScore: refuse("message to set game score not found"),
  getGameHighScores: refuse("message to get game high scores not found"),
  // sticker sets
  getStickerSet: STICKERSET_INVALID,
  getCustomEmojiStickers: refuse("custom emoji stickers are not supported"),
  uploadStickerFile: STICKERSET_INVALID,
  createNewStickerSet: STICKERSET_INVALID,
  addStickerToSet: STICKERSET_INVALID,
  setStickerPositionInSet: STICKERSET_INVALID,
  deleteStickerFromSet: STICKERSET_INVALID,
  replaceStickerInSet: STICKERSET_INVALID,
  setStickerSetTitle: STICKERSET_INVALID,
  setStickerSetThumbnail: STICKERSET_INVALID,
  deleteStickerSet: STICKERSET_INVALID,
  setChatStickerSet: STICKERSET_INVALID,
  deleteChatStickerSet: STICKERSET_INVALID,
  // forum topics
  getForumTopicIconStickers: NOT_A_FORUM,
  createForumTopic: NOT_A_FORUM,
  editForumTopic: NOT_A_FORUM,
  closeForumTopic: NOT_A_FORUM,
  reopenForumTopic: NOT_A_FORUM,
  deleteForumTopic: NOT_A_FORUM,
  unpinAllForumTopicMessages: NOT_A_FORUM,
  editGeneralForumTopic: NOT_A_FORUM,
  closeGeneralForumTopic: NOT_A_FORUM,
  reopenGeneralForumTopic: NOT_A_FORUM,
  hideGeneralForumTopic: NOT_A_FORUM,
  unhideGeneralForumTopic: NOT_A_FORUM,
  unpinAllGeneralForumTopicMessages: NOT_A_FORUM,
  // business accounts
  getBusinessConnection: BUSINESS_INVALID,
  // passport
  setPassportDataErrors: refuse("USER_ID_INVALID: no passport data was shared with the bot"),
} satisfies MethodTable;
