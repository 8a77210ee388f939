import { checkLink } from "../../lib/entity-url.ts";
import { isSpace } from "./syntax.ts";
import { byteOffset, parseError, type FormattedText, type MessageEntity } from "./types.ts";

// Tag → entity type; `span` needs class="tg-spoiler", `a` an href, `pre`/`code`/`blockquote` are special-cased.
const TAGS: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  a: "text_link",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
  "tg-emoji": "custom_emoji",
};
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * Decodes the character reference at `input[at] === "&"`: `&lt; &gt; &amp; &quot;` and numeric
 * ones (the `;` is optional, as in the compatible API). Returns undefined for anything else, in
 * which case the `&` is kept as text.
 */
function decodeReference(input: string, at: number): { char: string; next: number } | undefined {
  let pos = at + 1;
  let code: number;
  if (input[pos] === "#") {
    pos++;
    const hex = input[pos] === "x" || input[pos] === "X";
    if (hex) pos++;
    const digits = hex
      ? /^[0-9a-fA-F]*/.exec(input.slice(pos, pos + 10))![0]
      : /^[0-9]*/.exec(input.slice(pos, pos + 10))![0];
    pos += digits.length;
    code = digits === "" ? 0 : parseInt(digits, hex ? 16 : 10);
    if (code === 0 || code >= 0x10ffff || pos - at >= 10) return undefined;
  } else {
    const name = /^[a-zA-Z]*/.exec(input.slice(pos, pos + 32))![0];
    const char = NAMED[name];
    if (char === undefined) return undefined;
    pos += name.length;
    code = char.charCodeAt(0);
  }
  if (input[pos] === ";") pos++;
  return { char: String.fromCodePoint(code), next: pos };
}

interface OpenTag {
  tag: string;
  argument: string;
  expandable: boolean;
  offset: number;
  byte: number;
}

/** Parses Bot API HTML (`parse_mode: "HTML"`); throws FormattingError like the compatible API. */
export function parseHtml(input: string): FormattedText {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: OpenTag[] = [];
  const size = input.length;
  let i = 0;

  const readStartTag = (begin: number) => {
    const byte = byteOffset(input, begin);
    i = begin + 1;
    while (i < size && !isSpace(input[i]) && input[i] !== ">") i++;
    if (i >= size) throw parseError(`Unclosed start tag at byte offset ${byte}`);
    const tag = asciiLower(input.slice(begin + 1, i));
    if (!(tag in TAGS)) throw parseError(`Unsupported start tag "${tag}" at byte offset ${byte}`);

    let argument = "";
    let expandable = false;
    for (;;) {
      while (i < size && isSpace(input[i])) i++;
      if (i >= size) throw parseError(`Unclosed start tag at byte offset ${byte}`);
      if (input[i] === ">") break;
      const nameBegin = i;
      while (i < size && !isSpace(input[i]) && input[i] !== "=" && input[i] !== ">") i++;
      const name = input.slice(nameBegin, i);
      if (name === "") throw parseError(`Empty attribute name in the tag "${tag}" at byte offset ${byte}`);
      while (i < size && isSpace(input[i])) i++;
      const attribute = asciiLower(name);
      // <blockquote expandable> (with a value or without) is the only flag that means something.
      if (tag === "blockquote" && attribute === "expandable") expandable = true;
      if (input[i] !== "=") continue;
      i++;
      while (i < size && isSpace(input[i])) i++;
      if (i >= size) throw parseError(`Unclosed start tag "${tag}" at byte offset ${byte}`);
      let value = "";
      const quote = input[i];
      if (quote !== '"' && quote !== "'") {
        // A name token: letters, digits, periods and hyphens, case-insensitive.
        const tokenBegin = i;
        while (i < size && /[A-Za-z0-9.-]/.test(input[i]!)) i++;
        value = asciiLower(input.slice(tokenBegin, i));
        if (i < size && !isSpace(input[i]) && input[i] !== ">") {
          throw parseError(`Unexpected end of name token at byte offset ${byteOffset(input, tokenBegin)}`);
        }
      } else {
        i++;
        while (i < size && input[i] !== quote) {
          const decoded = input[i] === "&" ? decodeReference(input, i) : undefined;
          if (decoded) {
            value += decoded.char;
            i = decoded.next;
          } else {
            value += input[i++];
          }
        }
        if (i >= size) throw parseError(`Unclosed start tag at byte offset ${byte}`);
        i++;
      }
      if (tag === "a" && attribute === "href") argument = value;
      else if (tag === "code" && attribute === "class" && value.startsWith("language-")) argument = value.slice(9);
      else if (tag === "span" && attribute === "class" && value.startsWith("tg-")) argument = value.slice(3);
      else if (tag === "tg-emoji" && attribute === "emoji-id") argument = value;
    }
    if (tag === "span" && argument !== "spoiler") {
      throw parseError(`Tag "span" must have class "tg-spoiler" at byte offset ${byte}`);
    }
    open.push({ tag, argument, expandable, offset: text.length, byte });
    i++;
  };

  const readEndTag = (begin: number) => {
    const byte = byteOffset(input, begin);
    const top = open.at(-1);
    if (!top) throw parseError(`Unexpected end tag at byte offset ${byte}`);
    i = begin + 2;
    while (i < size && !isSpace(input[i]) && input[i] !== ">") i++;
    const tag = asciiLower(input.slice(begin + 2, i));
    while (i < size && isSpace(input[i])) i++;
    if (input[i] !== ">") throw parseError(`Unclosed end tag at byte offset ${byte}`);
    if (tag !== "" && tag !== top.tag) {
      throw parseError(`Unmatched end tag at byte offset ${byte}, expected "</${top.tag}>", found "</${tag}>"`);
    }
    i++;
    open.pop();
    closeTag(top);
  };

  const closeTag = (tag: OpenTag) => {
    const offset = tag.offset;
    const length = text.length - offset;
    if (length === 0) return;
    const last = entities.at(-1);
    const sameRange = last !== undefined && last.offset === offset && last.length === length;
    switch (tag.tag) {
      case "a": {
        const link = checkLink(tag.argument || text.slice(offset));
        // An invalid link leaves plain text, as in the compatible API.
        if (link.ok) entities.push({ type: "text_link", offset, length, url: link.url });
        return;
      }
      case "pre":
        if (sameRange && last.type === "code" && last.language) {
          last.type = "pre";
        } else {
          entities.push({ type: "pre", offset, length });
        }
        return;
      case "code":
        if (sameRange && last.type === "pre" && tag.argument) {
          last.language = tag.argument;
        } else {
          // The language is remembered only for a <pre> closing right after; a lone <code> drops it.
          entities.push({ type: "code", offset, length, ...(tag.argument ? { language: tag.argument } : {}) });
        }
        return;
      case "tg-emoji":
        if (!/^[1-9][0-9]{0,18}$/.test(tag.argument) || BigInt(tag.argument) > 0x7fffffffffffffffn) {
          throw parseError("Invalid custom emoji identifier specified");
        }
        entities.push({ type: "custom_emoji", offset, length, custom_emoji_id: tag.argument });
        return;
      case "blockquote":
        entities.push({ type: tag.expandable ? "expandable_blockquote" : "blockquote", offset, length });
        return;
      default:
        entities.push({ type: TAGS[tag.tag]!, offset, length });
    }
  };

  while (i < size) {
    const char = input[i]!;
    if (char === "&") {
      const decoded = decodeReference(input, i);
      if (decoded) {
        text += decoded.char;
        i = decoded.next;
        continue;
      }
    }
    if (char !== "<") {
      text += char;
      i++;
    } else if (input[i + 1] === "/") {
      readEndTag(i);
    } else {
      readStartTag(i);
    }
  }
  const unclosed = open.at(-1);
  if (unclosed) throw parseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);

  for (const entity of entities) {
    if (entity.type === "code") delete entity.language;
  }
  // Only references can make a lone surrogate here: parseFormatted refuses them in the input.
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)) {
    throw parseError(
      "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units",
    );
  }
  return { text, entities };
}
