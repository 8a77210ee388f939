import { linkUserId } from "./links.ts";
import { normalizeEntities, snapToCharacters } from "./normalize.ts";
import type { MessageEntity } from "./types.ts";

interface Walker {
  open(entity: MessageEntity): void;
  close(entity: MessageEntity): void;
  text(part: string, inside: MessageEntity[], start: number): void;
}

/** Entities inside the text, made valid and nested. */
const validEntities = (text: string, entities: MessageEntity[]) =>
  normalizeEntities(
    snapToCharacters(
      text,
      entities.filter(
        (entity) => entity.offset >= 0 && entity.length > 0 && entity.offset + entity.length <= text.length,
      ),
    ),
  );

/** Visits text and valid (sorted, nested) entities in document order. */
function walk(text: string, valid: MessageEntity[], walker: Walker) {
  const stack: MessageEntity[] = [];
  let at = 0;
  const advance = (to: number) => {
    if (to > at) walker.text(text.slice(at, to), stack, at);
    at = Math.max(at, to);
  };
  const closeUpTo = (offset: number) => {
    while (stack.length > 0 && stack.at(-1)!.offset + stack.at(-1)!.length <= offset) {
      const top = stack.at(-1)!;
      advance(top.offset + top.length);
      stack.pop();
      walker.close(top);
    }
  };
  for (const entity of valid) {
    closeUpTo(entity.offset);
    advance(entity.offset);
    walker.open(entity);
    stack.push(entity);
  }
  closeUpTo(Infinity);
  advance(text.length);
}

const mentionUrl = (entity: MessageEntity) => {
  const id = (entity.user as { id?: unknown } | undefined)?.id;
  return `tg://user?id=${typeof id === "number" || typeof id === "string" ? id : ""}`;
};

// ---------------------------------------------------------------------------------- HTML

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!);

const HTML_TAGS: Record<string, string> = {
  bold: "b",
  italic: "i",
  underline: "u",
  strikethrough: "s",
  spoiler: "tg-spoiler",
  code: "code",
  blockquote: "blockquote",
};

function htmlTags(entity: MessageEntity): [string, string] {
  switch (entity.type) {
    case "pre":
      return entity.language
        ? [`<pre><code class="language-${escapeHtml(entity.language)}">`, "</code></pre>"]
        : ["<pre>", "</pre>"];
    case "text_link":
      return [`<a href="${escapeHtml(entity.url ?? "")}">`, "</a>"];
    case "text_mention":
      return [`<a href="${escapeHtml(mentionUrl(entity))}">`, "</a>"];
    case "custom_emoji":
      return [`<tg-emoji emoji-id="${escapeHtml(entity.custom_emoji_id ?? "")}">`, "</tg-emoji>"];
    case "expandable_blockquote":
      return ["<blockquote expandable>", "</blockquote>"];
    default: {
      // Entities the server finds by itself (url, mention, bot_command...) are plain text.
      const tag = HTML_TAGS[entity.type];
      return tag ? [`<${tag}>`, `</${tag}>`] : ["", ""];
    }
  }
}

/** Renders text + entities as Bot API HTML: parseFormatted(renderHtml(t, e), "HTML") gives them back. */
export function renderHtml(text: string, entities: MessageEntity[]): string {
  let out = "";
  walk(text, validEntities(text, entities), {
    open: (entity) => (out += htmlTags(entity)[0]),
    close: (entity) => (out += htmlTags(entity)[1]),
    text: (part) => (out += escapeHtml(part)),
  });
  return out;
}

// ---------------------------------------------------------------------------- MarkdownV2

const escapeV2 = (text: string) => text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, "\\$&");
// Inside code and pre only ` and \ need it; a \r is escaped too so it is never taken for the line break after ```.
const escapeV2Code = (text: string) => text.replace(/[`\\\r]/g, "\\$&");
const escapeV2Url = (text: string) => text.replace(/[)\\]/g, "\\$&");
// An empty code entity: separates markers that would otherwise read differently (`_` `__`, two quotes).
const SEPARATOR = "``";
// Entities marked by the same string on both sides.
const V2_MARKERS: Record<string, string> = {
  bold: "*",
  italic: "_",
  underline: "__",
  strikethrough: "~",
  spoiler: "||",
  code: "`",
};
const isQuote = (entity: MessageEntity) => entity.type === "blockquote" || entity.type === "expandable_blockquote";

/**
 * Renders text + entities as MarkdownV2. A blockquote MarkdownV2 cannot say (one that does not
 * cover whole lines, see `quotable`) is rendered as its plain content.
 */
export function renderMarkdownV2(text: string, entities: MessageEntity[]): string {
  let out = "";
  let lastMarkerUnderscore = false;
  let lastQuoteEnd = -2;
  const valid = validEntities(text, entities);
  // A quote starts a line and ends with the line break that closes it (which no entity inside
  // may end with), or at the end of the text (where no entity around it may end).
  const canQuote = (quote: MessageEntity) => {
    const end = quote.offset + quote.length;
    if (quote.offset > 0 && text[quote.offset - 1] !== "\n") return false;
    const endOf = (other: MessageEntity) => other.offset + other.length;
    if (text[end - 1] === "\n") {
      return !valid.some((other) => other !== quote && other.offset >= quote.offset && endOf(other) === end);
    }
    return end === text.length && !valid.some((other) => other.offset < quote.offset && endOf(other) === end);
  };
  const quotes = new Set(valid.filter((entity) => isQuote(entity) && canQuote(entity)));
  const quotable = (entity: MessageEntity) => quotes.has(entity);
  const marker = (value: string) => {
    if (value.startsWith("_") && lastMarkerUnderscore) out += SEPARATOR;
    out += value;
    lastMarkerUnderscore = value.endsWith("_");
  };
  const open = (entity: MessageEntity) => {
    const simple = V2_MARKERS[entity.type];
    // `||` right before a line break in a quote would read as the expandable-quote mark.
    if (entity.type === "spoiler" && text[entity.offset] === "\n") return marker("||" + SEPARATOR);
    if (simple) return marker(simple);
    switch (entity.type) {
      case "pre": {
        const language = entity.language && /^[^\s`]+$/.test(entity.language) ? entity.language : "";
        return marker("```" + language + "\n");
      }
      case "text_link":
      case "text_mention":
        return marker("[");
      case "custom_emoji":
        return marker("![");
      case "blockquote":
      case "expandable_blockquote":
        if (!quotable(entity)) return;
        return marker((lastQuoteEnd === entity.offset ? SEPARATOR : "") + ">");
    }
  };
  const close = (entity: MessageEntity) => {
    const simple = V2_MARKERS[entity.type];
    if (simple) return marker(simple);
    switch (entity.type) {
      case "pre":
        return marker("```");
      case "text_link":
        return marker(`](${escapeV2Url(entity.url ?? "")})`);
      case "text_mention":
        return marker(`](${escapeV2Url(mentionUrl(entity))})`);
      case "custom_emoji":
        return marker(`](tg://emoji?id=${escapeV2Url(entity.custom_emoji_id ?? "")})`);
      case "blockquote":
      case "expandable_blockquote":
        if (!quotable(entity)) return;
        lastQuoteEnd = entity.offset + entity.length;
        // An expandable quote's `||` goes before its closing line break, else at its end.
        if (entity.type === "expandable_blockquote" && text[lastQuoteEnd - 1] !== "\n") marker("||");
        return;
    }
  };
  walk(text, valid, {
    open,
    close,
    text: (part, inside, start) => {
      const inCode = inside.some((entity) => entity.type === "code" || entity.type === "pre");
      const quote = inside.find(quotable);
      if (!quote || inCode) {
        out += inCode ? escapeV2Code(part) : escapeV2(part);
      } else {
        // Every further line of a quote starts with '>'; its closing line break does not.
        const closing = quote.offset + quote.length - 1 - start;
        const lines = part.split("\n");
        let at = 0;
        lines.forEach((line, index) => {
          out += escapeV2(line);
          at += line.length;
          if (index === lines.length - 1) return;
          if (at === closing) out += (quote.type === "expandable_blockquote" ? "||" : "") + "\n";
          else out += "\n>";
          at += 1;
        });
      }
      lastMarkerUnderscore = false;
    },
  });
  return out;
}
