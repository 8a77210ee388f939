import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FormattingError, parseFormatted, renderHtml, renderMarkdownV2, type MessageEntity } from "./index.ts";

const RUNS = 250;

const HTML_TOKENS = [
  "<b>",
  "</b>",
  "<i>",
  "</i>",
  "<u>",
  "</u>",
  "<s>",
  "</s>",
  "<tg-spoiler>",
  "</tg-spoiler>",
  '<span class="tg-spoiler">',
  "</span>",
  "<code>",
  "</code>",
  "<pre>",
  "</pre>",
  '<code class="language-js">',
  '<a href="https://ex.com/p">',
  "<a href='tg://user?id=5'>",
  "</a>",
  "<blockquote>",
  "<blockquote expandable>",
  "</blockquote>",
  '<tg-emoji emoji-id="5">',
  "</tg-emoji>",
  "&lt;",
  "&gt;",
  "&amp;",
  "&quot;",
  "&#128512;",
  "&#x41;",
  "&nbsp;",
  "<",
  ">",
  "&",
  "\n",
  " ",
  "😀",
  "é",
  "/start",
  "@alice",
  "#tag",
  "example.com",
  "<br>",
  "</>",
];
const MARKDOWN_V2_TOKENS = [
  "*",
  "_",
  "__",
  "~",
  "||",
  "`",
  "```",
  "```js\n",
  "[",
  "]",
  "](https://ex.com/p)",
  "](tg://user?id=5)",
  "![",
  "](tg://emoji?id=5)",
  ">",
  "\n>",
  "**>",
  "\n",
  "\\",
  "\\.",
  "\\*",
  "\\_",
  "\\`",
  ".",
  "!",
  "(",
  ")",
  "😀",
  "é",
  " ",
  "/start",
  "@alice",
  "#",
  "example\\.com",
];
const MARKDOWN_TOKENS = [
  "*",
  "_",
  "`",
  "```",
  "```py\n",
  "[",
  "]",
  "](https://ex.com)",
  "\\_",
  "\\*",
  "\n",
  "😀",
  " ",
  ".",
];

// Any code point (fc.string with the full-Unicode unit takes seconds to set up, this does not).
const codePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((code) => code < 0xd800 || code > 0xdfff)
  .map((code) => String.fromCodePoint(code));
const unicodeString = (maxLength: number) => fc.array(codePoint, { maxLength }).map((chars) => chars.join(""));

const markup = (tokens: string[]) =>
  fc
    .array(fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 6 }), unicodeString(4)), {
      maxLength: 24,
    })
    .map((parts) => parts.join(""));

const MODES: [string, string[]][] = [
  ["HTML", HTML_TOKENS],
  ["MarkdownV2", MARKDOWN_V2_TOKENS],
  ["Markdown", MARKDOWN_TOKENS],
];

/** Parses, returning undefined for markup the compatible API refuses; any other exception fails the test. */
function tryParse(input: string, mode: string): { text: string; entities: MessageEntity[] } | undefined {
  try {
    return parseFormatted(input, mode);
  } catch (error) {
    if (error instanceof FormattingError) {
      expect(error.description.startsWith("Bad Request: ")).toBe(true);
      return undefined;
    }
    throw error;
  }
}

/** The first way `entities` are not well formed for `text`, or "" when they are. */
function malformation(text: string, entities: MessageEntity[]): string {
  for (const [index, entity] of entities.entries()) {
    const end = entity.offset + entity.length;
    if (!Number.isInteger(entity.offset) || !Number.isInteger(entity.length)) return "not integers";
    if (entity.offset < 0 || entity.length <= 0 || end > text.length)
      return `outside the text: ${JSON.stringify(entity)}`;
    const previous = entities[index - 1];
    if (
      previous &&
      !(previous.offset < entity.offset || (previous.offset === entity.offset && previous.length >= entity.length))
    ) {
      return "not sorted";
    }
    for (const other of entities.slice(0, index)) {
      const otherEnd = other.offset + other.length;
      const disjoint = otherEnd <= entity.offset || end <= other.offset;
      const nested =
        (other.offset <= entity.offset && end <= otherEnd) || (entity.offset <= other.offset && otherEnd <= end);
      if (!disjoint && !nested) return `crossing: ${JSON.stringify([other, entity])}`;
    }
  }
  return "";
}

/** Entities lie inside the text, are sorted, and any two are disjoint or nested. */
const expectWellFormed = (text: string, entities: MessageEntity[]) => expect(malformation(text, entities)).toBe("");

describe("formatting properties", () => {
  for (const [mode, tokens] of MODES) {
    test(`${mode}: random markup parses or fails with a FormattingError, never anything else`, () => {
      fc.assert(
        fc.property(markup(tokens), (input) => {
          const parsed = tryParse(input, mode);
          if (parsed) expectWellFormed(parsed.text, parsed.entities);
        }),
        { numRuns: RUNS },
      );
    });

    test(`${mode}: what parses renders to HTML that parses back to the same text and entities`, () => {
      fc.assert(
        fc.property(markup(tokens), (input) => {
          const parsed = tryParse(input, mode);
          if (!parsed) return;
          expect(parseFormatted(renderHtml(parsed.text, parsed.entities), "HTML")).toEqual(parsed);
        }),
        { numRuns: RUNS },
      );
    });
  }

  test("MarkdownV2: what parses renders to MarkdownV2 that parses back the same", () => {
    fc.assert(
      fc.property(markup(MARKDOWN_V2_TOKENS), (input) => {
        const parsed = tryParse(input, "MarkdownV2");
        if (!parsed) return;
        expect(parseFormatted(renderMarkdownV2(parsed.text, parsed.entities), "MarkdownV2")).toEqual(parsed);
      }),
      { numRuns: RUNS },
    );
  });

  test("escaped plain text parses back to itself with no entities", () => {
    fc.assert(
      fc.property(unicodeString(40), fc.string({ maxLength: 40 }), (a, b) => {
        const text = a + b;
        for (const mode of ["HTML", "MarkdownV2"]) {
          const markup = mode === "HTML" ? renderHtml(text, []) : renderMarkdownV2(text, []);
          expect(parseFormatted(markup, mode, undefined, { detect: false })).toEqual({ text, entities: [] });
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("any valid entities render to MarkdownV2 that parses back the same (where MarkdownV2 can say it)", () => {
    const types = [
      "bold",
      "italic",
      "underline",
      "strikethrough",
      "spoiler",
      "code",
      "pre",
      "blockquote",
      "expandable_blockquote",
      "text_link",
      "custom_emoji",
    ];
    const anEntity = fc.record({
      type: fc.constantFrom(...types),
      offset: fc.integer({ min: 0, max: 12 }),
      length: fc.integer({ min: 1, max: 12 }),
      url: fc.constantFrom("https://ex.com/a_(b)", "tg://user?id=5"),
      language: fc.constantFrom("js", "c++", ""),
      custom_emoji_id: fc.constant("5368324170671202286"),
    });
    const text = fc
      .array(fc.constantFrom("a", "_", "*", "`", "\\", "\n", "\r", ">", "|", "😀", " ", "."), { maxLength: 12 })
      .map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, fc.array(anEntity, { maxLength: 8 }), (plain, raw) => {
        const given = raw.filter((entity) => entity.offset + entity.length <= plain.length);
        const parsed = parseFormatted(plain, undefined, given, { detect: false });
        // A blockquote must start a line and end with the line break that closes it (no entity
        // inside ending with it), or end the text (no entity around it ending there).
        const endOf = (entity: MessageEntity) => entity.offset + entity.length;
        const wholeLines = parsed.entities.filter((quote) => {
          if (!quote.type.endsWith("blockquote")) return true;
          if (quote.offset > 0 && plain[quote.offset - 1] !== "\n") return false;
          const end = endOf(quote);
          if (plain[end - 1] === "\n") {
            return !parsed.entities.some(
              (other) => other !== quote && other.offset >= quote.offset && endOf(other) === end,
            );
          }
          return (
            end === plain.length &&
            !parsed.entities.some((other) => other.offset < quote.offset && endOf(other) === end)
          );
        });
        const expected = parseFormatted(plain, undefined, wholeLines, { detect: false });
        const markdown = renderMarkdownV2(parsed.text, parsed.entities);
        expect(parseFormatted(markdown, "MarkdownV2", undefined, { detect: false })).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  test("random entities arrays are accepted and made valid, or refused with a FormattingError", () => {
    const types = [
      "bold",
      "italic",
      "underline",
      "strikethrough",
      "spoiler",
      "code",
      "pre",
      "blockquote",
      "text_link",
      "url",
      "phone_number",
    ];
    const anEntity = fc.record({
      type: fc.constantFrom(...types),
      offset: fc.integer({ min: -2, max: 14 }),
      length: fc.integer({ min: -1, max: 14 }),
      url: fc.constantFrom("https://ex.com", "nodot"),
    });
    fc.assert(
      fc.property(unicodeString(12), fc.array(anEntity, { maxLength: 8 }), (text, entities) => {
        let parsed: { text: string; entities: MessageEntity[] } | undefined;
        try {
          parsed = parseFormatted(text, undefined, entities);
        } catch (error) {
          expect(error).toBeInstanceOf(FormattingError);
          return;
        }
        expect(parsed.text).toBe(text);
        expectWellFormed(parsed.text, parsed.entities);
        // Phone numbers have no markup; everything else survives a trip through HTML.
        const expressible = parseFormatted(
          text,
          undefined,
          parsed.entities.filter((entity) => entity.type !== "phone_number"),
        );
        expect(parseFormatted(renderHtml(parsed.text, parsed.entities), "HTML")).toEqual(expressible);
      }),
      { numRuns: RUNS },
    );
  });
});
