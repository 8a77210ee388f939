/**
 * Bot API ids of accounts. Bot libraries validate ids by their shape (python-telegram-bot
 * refuses a token whose part before the colon has fewer than 3 digits) and keep them as
 * 64-bit or JS-safe integers, so an account's public id is its row id moved above a large
 * base: stable, unique, never reused (users ids are AUTOINCREMENT), far inside
 * Number.MAX_SAFE_INTEGER, and beyond 32 bits as the compatible API's own ids are.
 *
 * Versions before this one showed the row id itself. Ids below the base are still read as
 * row ids, so the chat ids and tokens bots stored then keep resolving.
 */
export const BOT_API_ID_BASE = 7_000_000_000;

/** The id bots see for an account (User.id, a private Chat.id, the token's prefix). */
export const botApiUserId = (accountId: number): number => accountId + BOT_API_ID_BASE;

/** The account row id behind an id a bot gave (public ids and, from older versions, row ids). */
export const accountIdOf = (botApiId: number): number =>
  botApiId >= BOT_API_ID_BASE ? botApiId - BOT_API_ID_BASE : botApiId;
