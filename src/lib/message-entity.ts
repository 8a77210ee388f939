/**
 * A formatting entity of a message, as stored and as the compatible Bot API shows it:
 * offsets and lengths in UTF-16 code units. Shared by the chats domain and the Bot API's
 * formatting module; other keys a sender gave are kept as they came.
 */
export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  user?: unknown;
  custom_emoji_id?: string;
  [key: string]: unknown;
}
