import { checkLink } from "../../lib/entity-url.ts";
import { readPreOpening } from "./syntax.ts";
import { byteOffset, parseError, type FormattedText, type MessageEntity } from "./types.ts";

const RESERVED = "_*[]()~`>#+-=|{}.!\n";
const CODE_RESERVED = "`";

// Entity names as the compatible API spells them in "Can't find end of X entity" errors.
const NAMES: Record<string, string> = {
  bold: "Bold",
  italic: "Italic",
  underline: "Underline",
  strikethrough: "Strikethrough",
  spoiler: "Spoiler",
  code: "Code",
  pre: "Pre",
  text_link: "TextUrl",
  custom_emoji: "CustomEmoji",
  blockquote: "BlockQuote",
};

interface Open {
  type: string;
  language?: string;
  offset: number;
  at: number;
  /** A quote whose last line ended with `||`. */
  expandable?: boolean;
}

/** `\` escapes any character with code 1..126, anywhere (also inside code, pre and link URLs). */
const isEscape = (input: string, i: number) => {
  const next = input.charCodeAt(i + 1);
  return input[i] === "\\" && next >= 1 && next <= 126;
};

/** Parses MarkdownV2 (`parse_mode: "MarkdownV2"`); throws FormattingError like the compatible API. */
export function parseMarkdownV2(input: string): FormattedText {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: Open[] = [];
  const size = input.length;
  let inQuote = false;
  const reserved = (message: string) =>
    parseError(`Character '${message}' is reserved and must be escaped with the preceding '\\'`);
  const unclosed = (entity: Open) => {
    const name = entity.type === "pre" && entity.language !== undefined ? "PreCode" : NAMES[entity.type];
    return parseError(`Can't find end of ${name} entity at byte offset ${byteOffset(input, entity.at)}`);
  };

  /** Reads a `(...)` URL starting at `i` (the `(`); returns it and the index of the `)`. */
  const readUrl = (i: number, what: string) => {
    let url = "";
    let j = i + 1;
    while (j < size && input[j] !== ")") {
      if (isEscape(input, j)) {
        url += input[j + 1];
        j += 2;
      } else {
        url += input[j++];
      }
    }
    if (j >= size) throw parseError(`Can't find end of ${what} at byte offset ${byteOffset(input, i + 1)}`);
    return { url, end: j };
  };

  /** Ends the quote on top of the stack; the line break that ends it belongs to it. */
  const closeQuote = () => {
    const quote = open.pop()!;
    inQuote = false;
    const length = text.length - quote.offset;
    if (length > 0)
      entities.push({ type: quote.expandable ? "expandable_blockquote" : "blockquote", offset: quote.offset, length });
  };
  /** A line starts here: nothing but carriage returns since the last line break. */
  const atLineStart = () => {
    let at = text.length;
    while (at > 0 && text[at - 1] === "\r") at--;
    return at === 0 || text[at - 1] === "\n";
  };

  for (let i = 0; i < size; i++) {
    const char = input[i]!;
    if (isEscape(input, i)) {
      text += input[++i];
      continue;
    }
    const top = open.at(-1);
    const special = top && (top.type === "code" || top.type === "pre") ? CODE_RESERVED : RESERVED;
    if (!special.includes(char)) {
      text += char;
      continue;
    }

    // `||` at the end of a quote's line (before an optional \r) makes the quote expandable.
    if (
      top?.type === "blockquote" &&
      char === "|" &&
      input[i + 1] === "|" &&
      /^\r?(\n|$)/.test(input.slice(i + 2, i + 4))
    ) {
      top.expandable = true;
      i++;
      continue;
    }
    let isEnd = false;
    if (top) {
      if (inQuote && char === "\n" && input[i + 1] !== ">") {
        isEnd = true;
      } else {
        switch (top.type) {
          case "bold":
            isEnd = char === "*";
            break;
          case "italic":
            isEnd = char === "_" && input[i + 1] !== "_";
            break;
          case "underline":
            isEnd = char === "_" && input[i + 1] === "_";
            break;
          case "strikethrough":
            isEnd = char === "~";
            break;
          case "spoiler":
            isEnd = char === "|" && input[i + 1] === "|";
            break;
          case "code":
            isEnd = char === "`";
            break;
          case "pre":
            isEnd = char === "`" && input[i + 1] === "`" && input[i + 2] === "`";
            break;
          case "text_link":
          case "custom_emoji":
            isEnd = char === "]";
            break;
        }
      }
    }

    if (!isEnd) {
      const at = i;
      let type: string;
      let language: string | undefined;
      switch (char) {
        case "_":
          if (input[i + 1] === "_") {
            type = "underline";
            i++;
          } else {
            type = "italic";
          }
          break;
        case "*":
          type = "bold";
          break;
        case "~":
          type = "strikethrough";
          break;
        case "|":
          if (input[i + 1] !== "|") throw reserved(char);
          type = "spoiler";
          i++;
          break;
        case "[":
          type = "text_link";
          break;
        case "!":
          if (input[i + 1] !== "[") throw reserved(char);
          type = "custom_emoji";
          i++;
          break;
        case "`":
          if (input[i + 1] === "`" && input[i + 2] === "`") {
            type = "pre";
            const opening = readPreOpening(input, i + 3);
            language = opening.language;
            i = opening.start - 1;
          } else {
            type = "code";
          }
          break;
        case "\n":
          text += "\n";
          if (input[i + 1] === ">") {
            i++;
            if (!inQuote) {
              inQuote = true;
              open.push({ type: "blockquote", offset: text.length, at: i });
            }
          }
          continue;
        case ">":
          // A quote starts a line; empty markers before it (`**>`) separate it from a previous quote.
          if (inQuote || !atLineStart()) throw reserved(char);
          inQuote = true;
          type = "blockquote";
          break;
        default:
          throw reserved(char);
      }
      open.push({ type, offset: text.length, at, ...(language !== undefined ? { language } : {}) });
      continue;
    }

    // The end of the innermost open entity.
    const entity = top!;
    if (char === "\n" && entity.type !== "blockquote") throw unclosed(entity);
    if (entity.type === "blockquote") {
      text += "\n";
      closeQuote();
      continue;
    }
    open.pop();
    let extra: Partial<MessageEntity> = {};
    let skip = text.length === entity.offset;
    switch (entity.type) {
      case "underline":
      case "spoiler":
        i++;
        break;
      case "pre":
        i += 2;
        if (entity.language !== undefined) extra = { language: entity.language };
        break;
      case "text_link": {
        let url: string;
        if (input[i + 1] === "(") {
          const read = readUrl(i + 1, "a URL");
          url = read.url;
          i = read.end;
        } else {
          url = text.slice(entity.offset);
        }
        const link = checkLink(url);
        if (link.ok) extra = { url: link.url };
        else skip = true;
        break;
      }
      case "custom_emoji": {
        if (input[i + 1] !== "(") throw parseError("Custom emoji entity must contain a tg://emoji URL");
        const read = readUrl(i + 1, "a custom emoji URL");
        i = read.end;
        extra = { custom_emoji_id: customEmojiId(read.url) };
        break;
      }
    }
    if (!skip)
      entities.push({ type: entity.type, offset: entity.offset, length: text.length - entity.offset, ...extra });
  }
  if (inQuote && open.at(-1)?.type === "blockquote") closeQuote();
  const left = open.at(-1);
  if (left) throw unclosed(left);
  return { text, entities };
}

/** The id of a `tg://emoji?id=N` link (N a positive 64-bit integer). */
function customEmojiId(url: string): string {
  const match = /^([^:/?#]*):(?:\/\/)?([^/?#]*)\/?(?:\?([^#]*))?(?:#.*)?$/s.exec(url);
  if (!match || match[1]!.toLowerCase() !== "tg") throw parseError("Custom emoji URL must have scheme tg");
  if (match[2]!.toLowerCase() !== "emoji") throw parseError('Custom emoji URL must have host "emoji"');
  const id = new URLSearchParams(match[3] ?? "").get("id");
  if (!id) throw parseError("Custom emoji URL must have an emoji identifier");
  if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > 0x7fffffffffffffffn) {
    throw parseError("Invalid custom emoji identifier specified");
  }
  return id;
}
