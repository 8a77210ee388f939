import { detectEntities } from "./detect.ts";
import { readGivenEntities } from "./given.ts";
import { parseHtml } from "./html.ts";
import { parseMarkdown } from "./markdown.ts";
import { parseMarkdownV2 } from "./markdown-v2.ts";
import { firstEndingAfter, normalizeEntities } from "./normalize.ts";
import { FormattingError, QUOTE_TYPES, STYLE_TYPES, type FormattedText, type MessageEntity } from "./types.ts";

export interface ParseOptions {
  /** Add the entities the server finds by itself (mentions, commands, links...). Default true. */
  detect?: boolean;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const PARSERS: Record<string, (input: string) => FormattedText> = {
  html: parseHtml,
  markdownv2: parseMarkdownV2,
  markdown: parseMarkdown,
};

/**
 * Turns `text` with `parseMode` markup ("HTML" | "MarkdownV2" | "Markdown", case-insensitive;
 * "" / "none" / undefined for none) or, without a parse mode, an explicit `entities` array
 * (or its JSON text) into plain text plus entities as the compatible API stores them: valid,
 * nested where allowed, sorted, with UTF-16 offsets, plus the entities the server detects
 * itself (unless `options.detect` is false). Throws FormattingError whose `description` is the
 * compatible API's, e.g. `Bad Request: can't parse entities: Unsupported start tag "x" at byte offset 5`.
 */
export function parseFormatted(
  text: string,
  parseMode?: string,
  entities?: unknown,
  options: ParseOptions = {},
): FormattedText {
  // JSON may carry lone surrogates; the compatible API takes UTF-8 only.
  if (LONE_SURROGATE.test(text)) throw new FormattingError("Bad Request: strings must be encoded in UTF-8");
  let parsed: FormattedText;
  const mode = (parseMode ?? "").toLowerCase();
  if (mode !== "" && mode !== "none") {
    const parser = PARSERS[mode];
    if (!parser) throw new FormattingError("Bad Request: unsupported parse_mode");
    parsed = parser(text);
  } else {
    parsed = { text, entities: readGivenEntities(text, entities) };
  }
  let all = normalizeEntities(parsed.entities);
  if (options.detect !== false) {
    // Found entities never overlap entities the sender made, other than styles and quotes
    // (those made are disjoint and sorted, so the one to check is the first ending after).
    const made = all.filter((entity) => !STYLE_TYPES.has(entity.type) && !QUOTE_TYPES.has(entity.type));
    const found = detectEntities(parsed.text).filter((entity) => {
      const next = made[firstEndingAfter(made, entity.offset)];
      return next === undefined || next.offset >= entity.offset + entity.length;
    });
    all = [...all, ...found];
  }
  return { text: parsed.text, entities: normalizeEntities(all).map(cleanEntity) };
}

/** Only the fields a type carries, in the Bot API's order. */
function cleanEntity(entity: MessageEntity): MessageEntity {
  const { type, offset, length } = entity;
  const result: MessageEntity = { type, offset, length };
  if (type === "text_link" && entity.url !== undefined) result.url = entity.url;
  if (type === "pre" && entity.language) result.language = entity.language;
  if (type === "text_mention" && entity.user !== undefined) result.user = entity.user;
  if (type === "custom_emoji" && entity.custom_emoji_id !== undefined) result.custom_emoji_id = entity.custom_emoji_id;
  return result;
}
