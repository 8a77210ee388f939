import { checkLink } from "../../lib/entity-url.ts";
import { readPreOpening } from "./syntax.ts";
import { byteOffset, parseError, type FormattedText, type MessageEntity } from "./types.ts";

/**
 * Parses legacy Markdown (`parse_mode: "Markdown"`): *bold* _italic_ `code` ```pre``` [text](url),
 * no nesting, `\` escapes only _ * ` [ outside entities.
 */
export function parseMarkdown(input: string): FormattedText {
  let text = "";
  const entities: MessageEntity[] = [];
  const size = input.length;
  for (let i = 0; i < size; i++) {
    const char = input[i]!;
    const next = input[i + 1];
    if (char === "\\" && (next === "_" || next === "*" || next === "`" || next === "[")) {
      text += next;
      i++;
      continue;
    }
    if (char !== "_" && char !== "*" && char !== "`" && char !== "[") {
      text += char;
      continue;
    }

    const begin = i;
    const endChar = char === "[" ? "]" : char;
    let isPre = false;
    let language = "";
    i++;
    if (char === "`" && input[i] === "`" && input[i + 1] === "`") {
      isPre = true;
      const opening = readPreOpening(input, i + 2);
      language = opening.language ?? "";
      i = opening.start;
    }

    const offset = text.length;
    while (i < size && (input[i] !== endChar || (isPre && !(input[i + 1] === "`" && input[i + 2] === "`")))) {
      text += input[i++];
    }
    if (i >= size) throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, begin)}`);

    const length = text.length - offset;
    if (length > 0) {
      switch (char) {
        case "_":
          entities.push({ type: "italic", offset, length });
          break;
        case "*":
          entities.push({ type: "bold", offset, length });
          break;
        case "`":
          entities.push(
            isPre
              ? { type: "pre", offset, length, ...(language ? { language } : {}) }
              : { type: "code", offset, length },
          );
          break;
        case "[": {
          let url: string;
          if (input[i + 1] !== "(") {
            url = text.slice(offset);
          } else {
            i += 2;
            const urlBegin = i;
            while (i < size && input[i] !== ")") i++;
            url = input.slice(urlBegin, i);
          }
          const link = checkLink(url);
          if (link.ok) entities.push({ type: "text_link", offset, length, url: link.url });
          break;
        }
      }
    }
    if (isPre) i += 2;
  }
  return { text, entities };
}
