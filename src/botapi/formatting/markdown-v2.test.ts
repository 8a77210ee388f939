import { describe, expect, test } from "bun:test";
import { DOCUMENTED_NESTING, entity, parse, parseFails } from "../../testing/formatting";

const RESERVED = ["_", "*", "[", "]", "(", ")", "~", "`", ">", "#", "+", "-", "=", "|", "{", "}", ".", "!"];

describe("MarkdownV2", () => {
  test("every entity kind", () => {
    expect(parse("*b* _i_ __u__ ~s~ ||p|| `c` [l](http://www.example.com/)", "MarkdownV2")).toEqual({
      text: "b i u s p c l",
      entities: [
        entity("bold", 0, 1),
        entity("italic", 2, 1),
        entity("underline", 4, 1),
        entity("strikethrough", 6, 1),
        entity("spoiler", 8, 1),
        entity("code", 10, 1),
        entity("text_link", 12, 1, { url: "http://www.example.com/" }),
      ],
    });
    expect(parse("[m](tg://user?id=123456789)", "MarkdownV2").entities).toEqual([
      entity("text_link", 0, 1, { url: "tg://user?id=123456789" }),
    ]);
    expect(parse("![👍](tg://emoji?id=5368324170671202286)", "MarkdownV2").entities).toEqual([
      entity("custom_emoji", 0, 2, { custom_emoji_id: "5368324170671202286" }),
    ]);
    expect(parse("🏟 🏟![👍](TG://EMoJI/?test=1231&id=25#id=32)a", "MarkdownV2").entities).toEqual([
      entity("custom_emoji", 5, 2, { custom_emoji_id: "25" }),
    ]);
    expect(parse("[telegram\\.org](tg:user?id=123456)", "MarkdownV2").entities).toEqual([
      entity("text_link", 0, 12, { url: "tg://user?id=123456" }),
    ]);
    expect(parse("[telegram\\.org](https://telegram.dog?)", "MarkdownV2").entities).toEqual([
      entity("text_link", 0, 12, { url: "https://telegram.dog/?" }),
    ]);
  });

  test("nesting as in the documentation", () => {
    expect(
      parse(
        "*bold _italic bold ~italic bold strikethrough ||italic bold strikethrough spoiler||~ __underline italic bold___ bold*",
        "MarkdownV2",
      ),
    ).toEqual(DOCUMENTED_NESTING);
  });

  test("pre blocks: language, the first line break dropped, only ` and \\ escaped inside", () => {
    expect(parse("```python\nprint(1) # a_b*c\n```", "MarkdownV2")).toEqual({
      text: "print(1) # a_b*c\n",
      entities: [entity("pre", 0, 17, { language: "python" })],
    });
    expect(parse("```\ncode```", "MarkdownV2")).toEqual({ text: "code", entities: [entity("pre", 0, 4)] });
    expect(parse("```one```", "MarkdownV2")).toEqual({ text: "one", entities: [entity("pre", 0, 3)] });
    expect(parse("`a.b_c \\` \\\\`", "MarkdownV2")).toEqual({ text: "a.b_c ` \\", entities: [entity("code", 0, 9)] });
  });

  test("link URLs: only ) and \\ need escaping; an invalid URL leaves plain text", () => {
    expect(parse("[x](https://a.com/b_(c\\)d)", "MarkdownV2").entities).toEqual([
      entity("text_link", 0, 1, { url: "https://a.com/b_(c)d" }),
    ]);
    expect(parse("[x](javascript:alert\\(1\\))", "MarkdownV2")).toEqual({ text: "x", entities: [] });
    expect(parse("[example\\.com]", "MarkdownV2").entities).toEqual([
      entity("text_link", 0, 11, { url: "http://example.com/" }),
    ]);
  });

  test("each of the 18 reserved characters must be escaped outside entities", () => {
    for (const char of RESERVED) {
      expect(parse(`a\\${char}b`, "MarkdownV2")).toEqual({ text: `a${char}b`, entities: [] });
    }
    for (const char of ["#", "+", "-", "=", "{", "}", ".", "!", "(", ")", "]", "|"]) {
      parseFails(
        `a${char}b`,
        "MarkdownV2",
        `Character '${char}' is reserved and must be escaped with the preceding '\\'`,
      );
    }
    parseFails("x >y", "MarkdownV2", "Character '>' is reserved and must be escaped with the preceding '\\'");
    parseFails("Version 1.0", "MarkdownV2", "Character '.' is reserved and must be escaped with the preceding '\\'");
    expect(parse("\\\\ \\a \\ü", "MarkdownV2").text).toBe("\\ a \\ü");
  });

  test("__ is greedy underline; ___italic underline___ needs an empty bold separator", () => {
    parseFails("___italic underline___", "MarkdownV2", "Can't find end of Italic entity at byte offset 21");
    expect(parse("___italic underline_**__", "MarkdownV2")).toEqual({
      text: "italic underline",
      entities: [entity("italic", 0, 16), entity("underline", 0, 16)],
    });
    expect(parse("__a _b_ c__", "MarkdownV2").entities).toEqual([entity("underline", 0, 5), entity("italic", 2, 1)]);
  });

  test("unclosed entities report their kind and byte offset", () => {
    const cases: [string, string][] = [
      ["x *bold", "Can't find end of Bold entity at byte offset 2"],
      ["_it", "Can't find end of Italic entity at byte offset 0"],
      ["__u", "Can't find end of Underline entity at byte offset 0"],
      ["~s", "Can't find end of Strikethrough entity at byte offset 0"],
      ["||p", "Can't find end of Spoiler entity at byte offset 0"],
      ["`c", "Can't find end of Code entity at byte offset 0"],
      ["```pre", "Can't find end of Pre entity at byte offset 0"],
      ["🏟 🏟```a ", "Can't find end of PreCode entity at byte offset 9"],
      ["🏟 🏟```🏟 🏟`", "Can't find end of Code entity at byte offset 21"],
      ["🏟 🏟__🏟 _🏟___", "Can't find end of Italic entity at byte offset 23"],
      ["🏟 🏟![👍](tg:emojis?id=1234)", 'Custom emoji URL must have host "emoji"'],
      ["🏟 🏟![👍](tg://emoji#test)", "Custom emoji URL must have an emoji identifier"],
      ["🏟 🏟![👍](tg://emoji?test=1#&id=25)", "Custom emoji URL must have an emoji identifier"],
      ["🏟 🏟![👍](tg://emoji?test=1231&id=025)", "Invalid custom emoji identifier specified"],
      ["[link", "Can't find end of TextUrl entity at byte offset 0"],
      ["![e", "Can't find end of CustomEmoji entity at byte offset 0"],
      ["🏟 🏟_abacaba", "Can't find end of Italic entity at byte offset 9"],
      ["[a](http://x", "Can't find end of a URL at byte offset 4"],
      ["![a](tg://emoji?id=1", "Can't find end of a custom emoji URL at byte offset 5"],
      ["![a]", "Custom emoji entity must contain a tg://emoji URL"],
      ["![a](https://a.com)", "Custom emoji URL must have scheme tg"],
      ["![a](tg://user?id=1)", 'Custom emoji URL must have host "emoji"'],
      ["![a](tg://emoji?x=1)", "Custom emoji URL must have an emoji identifier"],
      ["![a](tg://emoji?id=0)", "Invalid custom emoji identifier specified"],
    ];
    for (const [input, reason] of cases) parseFails(input, "MarkdownV2", reason);
    // A newline inside a bold is fine outside quotes.
    expect(parse("*a\nb*", "Markdownv2").entities).toEqual([entity("bold", 0, 3)]);
  });

  test("block quotations: lines starting with >, the closing line break included", () => {
    expect(parse(">quote\n>line *two*\nafter", "MarkdownV2")).toEqual({
      text: "quote\nline two\nafter",
      entities: [entity("blockquote", 0, 15), entity("bold", 11, 3)],
    });
    expect(parse("a\n>q", "MarkdownV2").entities).toEqual([entity("blockquote", 2, 1)]);
    expect(parse("> \n> \n>", "MarkdownV2")).toEqual({ text: " \n \n", entities: [entity("blockquote", 0, 4)] });
    expect(parse(">\n1", "MarkdownV2")).toEqual({ text: "\n1", entities: [entity("blockquote", 0, 1)] });
    expect(parse(">\n**>2", "MarkdownV2").entities).toEqual([entity("blockquote", 0, 1), entity("blockquote", 1, 1)]);
    expect(parse(">**\n>2", "MarkdownV2").entities).toEqual([entity("blockquote", 0, 2)]);
    expect(parse("abc\n>def\n>def\n\r>ghi2\njkl", "MarkdownV2")).toEqual({
      text: "abc\ndef\ndef\n\rghi2\njkl",
      entities: [entity("blockquote", 4, 8), entity("blockquote", 13, 5)],
    });
    expect(parse("*>abcd\n*", "MarkdownV2").entities).toEqual([entity("blockquote", 0, 5), entity("bold", 0, 5)]);
    expect(parse(">*abcd*\n", "MarkdownV2").entities).toEqual([entity("blockquote", 0, 5), entity("bold", 0, 4)]);
    // Code in a quote runs over line breaks, '>' included.
    expect(parse(">`b\n>ld \n>bo\nld`\n>asd\ndef", "MarkdownV2")).toEqual({
      text: "b\n>ld \n>bo\nld\nasd\ndef",
      entities: [entity("blockquote", 0, 18), entity("code", 0, 13)],
    });
    parseFails(">*b\n>ld \n>bo\nld*\nasd\ndef", "MarkdownV2", "Can't find end of Bold entity at byte offset 1");
    parseFails(">\n*a*>2", "MarkdownV2", "Character '>' is reserved and must be escaped with the preceding '\\'");
  });

  test("expandable block quotations end their last line with ||", () => {
    expect(parse(">asd\n>q||e||w||\nasdad", "MarkdownV2")).toEqual({
      text: "asd\nqew\nasdad",
      entities: [entity("expandable_blockquote", 0, 8), entity("spoiler", 5, 1)],
    });
    expect(parse(">asd\n>q||ew||\nasdad", "MarkdownV2").entities).toEqual([
      entity("blockquote", 0, 8),
      entity("spoiler", 5, 2),
    ]);
    expect(parse(">asd\r\n>q||e||w||\r\n", "MarkdownV2").entities).toEqual([
      entity("expandable_blockquote", 0, 10),
      entity("spoiler", 6, 1),
    ]);
    expect(parse(">asd\r\n>q||e||w||", "MarkdownV2").entities).toEqual([
      entity("expandable_blockquote", 0, 8),
      entity("spoiler", 6, 1),
    ]);
    expect(parse(">||", "MarkdownV2")).toEqual({ text: "", entities: [] });
    parseFails(">asd\n>q||e||w||\n||asdad", "MarkdownV2", "Can't find end of Spoiler entity at byte offset 16");
    parseFails(">asd\n>q||ew\n||asdad", "MarkdownV2", "Can't find end of Spoiler entity at byte offset 7");
    parseFails(">asd\n>q||e||w__\n||asdad", "MarkdownV2", "Can't find end of Underline entity at byte offset 13");
    parseFails(">asd\n>q||e||w||a\n||asdad", "MarkdownV2", "Can't find end of Spoiler entity at byte offset 13");
  });

  test("empty entities are dropped; offsets are UTF-16", () => {
    expect(parse("**x", "MarkdownV2")).toEqual({ text: "x", entities: [] });
    expect(parse("😀 *é😀*", "MarkdownV2").entities).toEqual([entity("bold", 3, 3)]);
  });
});
