/**
 * Bot API formatting: parse_mode markup (HTML, MarkdownV2, legacy Markdown) and `entities`
 * arrays into plain text plus entities (UTF-16 offsets), entity auto-detection, and rendering
 * back to markup. Pure: no database, no HTTP.
 */
export { FormattingError, type MessageEntity } from "./types.ts";
export { parseFormatted } from "./parse.ts";
export { detectEntities } from "./detect.ts";
export { renderHtml, renderMarkdownV2 } from "./render.ts";
