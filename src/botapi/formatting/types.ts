import type { MessageEntity } from "../../lib/message-entity";
export type { MessageEntity };

/**
 * A formatting problem, reported by the Bot API as 400 with `description` verbatim, e.g.
 * `Bad Request: can't parse entities: Unsupported start tag "blink" at byte offset 5`.
 */
export class FormattingError extends Error {
  readonly description: string;
  constructor(description: string) {
    super(description);
    this.name = "FormattingError";
    this.description = description;
  }
}

/** The prefix the compatible API puts in front of every markup parse error. */
export const PARSE_ERROR_PREFIX = "Bad Request: can't parse entities: ";

/** A markup parse error: `reason` is appended to the compatible API's prefix. */
export function parseError(reason: string): FormattingError {
  return new FormattingError(PARSE_ERROR_PREFIX + reason);
}

/** Parsed message text: plain text plus entities (UTF-16 offsets). */
export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

/** Styles: may contain and be part of any entity except code and pre; same-type ones merge. */
export const STYLE_TYPES = new Set(["bold", "italic", "underline", "strikethrough", "spoiler"]);
export const QUOTE_TYPES = new Set(["blockquote", "expandable_blockquote"]);
export const CODE_TYPES = new Set(["code", "pre"]);
/** Found in the text by the server itself (a given one is ignored and found again). */
export const DETECTED_TYPES = new Set(["mention", "hashtag", "cashtag", "bot_command", "url", "email"]);
/** Every type an `entities` array may carry. */
export const ENTITY_TYPES = new Set([
  ...STYLE_TYPES,
  ...QUOTE_TYPES,
  ...CODE_TYPES,
  ...DETECTED_TYPES,
  "phone_number",
  "bank_card_number",
  "text_link",
  "text_mention",
  "custom_emoji",
]);

/** UTF-8 byte offset of the UTF-16 `index` in `text` (error messages count bytes, as the compatible API does). */
export function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), "utf8");
}
