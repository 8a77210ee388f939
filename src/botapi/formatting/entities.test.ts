import { describe, expect, test } from "bun:test";
import { detectEntities, parseFormatted } from "./index.ts";
import { entity, expectFailure, parse } from "../../testing/formatting";

const failsWith = (entities: unknown, description: string, text = "hello") =>
  expectFailure(() => parse(text, undefined, entities), description);

describe("entities arrays", () => {
  test("valid entities come back sorted with only their own fields", () => {
    expect(
      parse("hello world", undefined, [
        { type: "italic", offset: 6, length: 5, url: "http://ignored.com" },
        { type: "bold", offset: 0, length: 5 },
        { type: "pre", offset: 6, length: 5, language: "js" },
      ]).entities,
    ).toEqual([entity("bold", 0, 5), entity("pre", 6, 5, { language: "js" })]);
    expect(parse("ab", undefined, '[{"type":"underline","offset":"0","length":2}]').entities).toEqual([
      entity("underline", 0, 2),
    ]);
    expect(parse("😀 hi", undefined, [{ type: "bold", offset: 3, length: 2 }]).entities).toEqual([
      entity("bold", 3, 2),
    ]);
    expect(
      parse("hi there", undefined, [{ type: "text_link", offset: 3, length: 5, url: "Example.com/a b" }]).entities,
    ).toEqual([entity("text_link", 3, 5, { url: "http://example.com/a%20b" })]);
    expect(
      parse("x", undefined, [{ type: "text_mention", offset: 0, length: 1, user: { id: 42, first_name: "A" } }])
        .entities,
    ).toEqual([entity("text_mention", 0, 1, { user: { id: 42 } })]);
    expect(parse("x", undefined, null)).toEqual({ text: "x", entities: [] });
    expect(parse("x", "", [{ type: "bold", offset: 0, length: 1 }]).entities).toEqual([entity("bold", 0, 1)]);
  });

  test("a boundary inside an emoji widens to the whole emoji; lone surrogates are refused", () => {
    expect(parse("a😀b", undefined, [{ type: "bold", offset: 2, length: 2 }]).entities).toEqual([entity("bold", 1, 3)]);
    expect(parse("😀", undefined, [{ type: "italic", offset: 0, length: 1 }]).entities).toEqual([
      entity("italic", 0, 2),
    ]);
    for (const mode of [undefined, "HTML", "MarkdownV2", "Markdown"]) {
      expectFailure(() => parse("a\ud83d", mode), "Bad Request: strings must be encoded in UTF-8");
    }
  });

  test("overlapping entities are made valid: same styles merge, crossing styles split", () => {
    expect(
      parse("abcdef", undefined, [
        { type: "bold", offset: 0, length: 3 },
        { type: "bold", offset: 2, length: 2 },
        { type: "bold", offset: 4, length: 1 },
      ]).entities,
    ).toEqual([entity("bold", 0, 5)]);
    expect(
      parse("abcdef", undefined, [
        { type: "bold", offset: 0, length: 4 },
        { type: "text_link", offset: 2, length: 4, url: "https://a.com" },
      ]).entities,
    ).toEqual([entity("bold", 0, 2), entity("text_link", 2, 4, { url: "https://a.com/" }), entity("bold", 2, 2)]);
    expect(
      parse("abcdef", undefined, [
        { type: "italic", offset: 0, length: 6 },
        { type: "code", offset: 2, length: 2 },
        { type: "pre", offset: 3, length: 3 },
        { type: "blockquote", offset: 0, length: 6 },
        { type: "blockquote", offset: 1, length: 2 },
        { type: "bold", offset: 0, length: 0 },
      ]).entities,
    ).toEqual([entity("blockquote", 0, 6), entity("italic", 0, 2), entity("code", 2, 2), entity("italic", 4, 2)]);
  });

  test("types the server finds itself are ignored and found again", () => {
    expect(
      parseFormatted("see example.com @alice", undefined, [
        { type: "url", offset: 0, length: 3 },
        { type: "mention", offset: 4, length: 3 },
      ]).entities,
    ).toEqual([entity("url", 4, 11), entity("mention", 16, 6)]);
  });

  test("bad entities give the compatible API's errors", () => {
    failsWith("not json", "Bad Request: can't parse entities JSON object");
    failsWith({ type: "bold" }, "Bad Request: expected an Array of MessageEntity");
    failsWith([1], "Bad Request: can't parse MessageEntity: expected an Object");
    failsWith(
      [{ type: "shiny", offset: 0, length: 1 }],
      "Bad Request: can't parse MessageEntity: Unsupported type specified",
    );
    failsWith([{ offset: 0, length: 1 }], `Bad Request: can't parse MessageEntity: Can't find field "type"`);
    failsWith(
      [{ type: 5, offset: 0, length: 1 }],
      "Bad Request: can't parse MessageEntity: Unsupported type specified",
    );
    failsWith(
      [{ type: ["bold"], offset: 0, length: 1 }],
      `Bad Request: can't parse MessageEntity: Field "type" must be of type String`,
    );
    failsWith([{ type: "bold", length: 1 }], `Bad Request: can't parse MessageEntity: Can't find field "offset"`);
    failsWith(
      [{ type: "bold", offset: 1.5, length: 1 }],
      `Bad Request: can't parse MessageEntity: Field "offset" must be a valid Number`,
    );
    failsWith(
      [{ type: "bold", offset: 0, length: "x" }],
      `Bad Request: can't parse MessageEntity: Field "length" must be a valid Number`,
    );
    failsWith([{ type: "bold", offset: -1, length: 1 }], "Bad Request: receive an entity with incorrect offset -1");
    failsWith([{ type: "bold", offset: 0, length: -1 }], "Bad Request: receive an entity with incorrect length -1");
    failsWith(
      [{ type: "bold", offset: 9, length: 1 }],
      "Bad Request: entity begins after the end of the text at UTF-16 offset 9",
    );
    failsWith(
      [{ type: "bold", offset: 3, length: 5 }],
      "Bad Request: entity beginning at UTF-16 offset 3 ends after the end of the text at UTF-16 offset 8",
    );
    failsWith(
      [{ type: "text_link", offset: 0, length: 2 }],
      `Bad Request: can't parse MessageEntity: Can't find field "url"`,
    );
    failsWith(
      [{ type: "text_link", offset: 0, length: 2, url: "nodot" }],
      "Bad Request: entity URL 'nodot' is invalid: Wrong HTTP URL",
    );
    failsWith(
      [{ type: "text_link", offset: 0, length: 2, url: "javascript:alert(1)" }],
      "Bad Request: entity URL 'javascript:alert(1)' is invalid: Unsupported URL protocol",
    );
    failsWith(
      [{ type: "custom_emoji", offset: 0, length: 2 }],
      `Bad Request: can't parse MessageEntity: Can't find field "custom_emoji_id"`,
    );
    failsWith(
      [{ type: "custom_emoji", offset: 0, length: 2, custom_emoji_id: "x" }],
      `Bad Request: can't parse MessageEntity: Field "custom_emoji_id" must be a valid Number`,
    );
    failsWith(
      [{ type: "custom_emoji", offset: 0, length: 2, custom_emoji_id: "0" }],
      "Bad Request: invalid custom emoji identifier specified",
    );
    failsWith(
      [{ type: "text_mention", offset: 0, length: 2 }],
      `Bad Request: can't parse MessageEntity: Can't find field "user"`,
    );
    failsWith(
      [{ type: "text_mention", offset: 0, length: 2, user: {} }],
      `Bad Request: can't parse MessageEntity: Can't find field "id"`,
    );
    // The text is only two UTF-16 units long: the emoji.
    failsWith(
      [{ type: "bold", offset: 0, length: 3 }],
      "Bad Request: entity beginning at UTF-16 offset 0 ends after the end of the text at UTF-16 offset 3",
      "😀",
    );
  });

  test("parse modes are case-insensitive; an unknown one is refused; markup wins over entities", () => {
    expectFailure(() => parseFormatted("x", "XML"), "Bad Request: unsupported parse_mode");
    expect(parseFormatted("<b>x</b>", "hTmL").entities).toEqual([entity("bold", 0, 1)]);
    expect(parseFormatted("*x*", "none")).toEqual({ text: "*x*", entities: [] });
    expect(parseFormatted("*x*", "MARKDOWNV2", [{ type: "italic", offset: 0, length: 3 }]).entities).toEqual([
      entity("bold", 0, 1),
    ]);
  });
});

describe("detected entities", () => {
  test("bot commands", () => {
    expect(detectEntities("/start")).toEqual([entity("bot_command", 0, 6)]);
    expect(detectEntities("/start@my_bot payload")).toEqual([entity("bot_command", 0, 13)]);
    expect(detectEntities("hi /help, /a_b1 /x")).toEqual([
      entity("bot_command", 3, 5),
      entity("bot_command", 10, 5),
      entity("bot_command", 16, 2),
    ]);
    for (const text of ["a/b", "/", "//x", "/x/y", "/start@ab", "</b>", "/é"]) {
      expect(detectEntities(text).filter((found) => found.type === "bot_command")).toEqual([]);
    }
  });

  test("mentions, hashtags, cashtags", () => {
    expect(detectEntities("@alice and @bo_b1, not a@bcd or @ab")).toEqual([
      entity("mention", 0, 6),
      entity("mention", 11, 6),
    ]);
    expect(detectEntities("#tag #día #123 a#b #x#")).toEqual([entity("hashtag", 0, 4), entity("hashtag", 5, 4)]);
    expect(detectEntities("buy $BTC not $btc or $TOOLONGXX")).toEqual([entity("cashtag", 4, 4)]);
  });

  test("links and e-mail addresses", () => {
    expect(
      detectEntities("see https://a.b.com/x?y=1. or example.com, (http://w.org/a_(b)) mail me@mail.example.org"),
    ).toEqual([entity("url", 4, 21), entity("url", 30, 11), entity("url", 44, 18), entity("email", 69, 19)]);
    expect(detectEntities("tg://resolve?domain=x")).toEqual([entity("url", 0, 21)]);
    expect(detectEntities("file.txt notes.docx version 1.2.3")).toEqual([]);
  });

  test("parseFormatted adds them except where markup made a link or code", () => {
    expect(
      parseFormatted("<b>/start</b> <code>@alice</code> <a href='https://x.com'>y.com</a> #t", "HTML").entities,
    ).toEqual([
      // Same range: ordered by type priority as the compatible API does.
      entity("bot_command", 0, 6),
      entity("bold", 0, 6),
      entity("code", 7, 6),
      entity("text_link", 14, 5, { url: "https://x.com/" }),
      entity("hashtag", 20, 2),
    ]);
    expect(parseFormatted("*see example\\.com*", "MarkdownV2", undefined, { detect: false }).entities).toEqual([
      entity("bold", 0, 15),
    ]);
  });
});

describe("cost", () => {
  test("long adversarial input is handled in linear-ish time", () => {
    const inputs = [
      "a".repeat(20000),
      "a.".repeat(10000),
      "a-b.".repeat(5000),
      "https://" + "a.".repeat(8000),
      "(".repeat(5000) + "http://a.com/" + ")".repeat(5000),
    ];
    for (const input of inputs) {
      const started = performance.now();
      expect(Array.isArray(detectEntities(input))).toBe(true);
      // backtracking gone wrong takes minutes on such input; the bound leaves room for a busy machine
      expect(performance.now() - started).toBeLessThan(5_000);
    }
    const started = performance.now();
    const parsed = parseFormatted("*x* _y_ `z` ".repeat(1500), "MarkdownV2");
    expect(parsed.entities).toHaveLength(4500);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
