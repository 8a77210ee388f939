import { describe, expect, test } from "bun:test";
import { DOCUMENTED_NESTING, entity, parse, parseFails } from "../../testing/formatting";

describe("HTML", () => {
  test("every supported tag and alias maps to its entity", () => {
    const cases: [string, string][] = [
      ["b", "bold"],
      ["strong", "bold"],
      ["i", "italic"],
      ["em", "italic"],
      ["u", "underline"],
      ["ins", "underline"],
      ["s", "strikethrough"],
      ["strike", "strikethrough"],
      ["del", "strikethrough"],
      ["tg-spoiler", "spoiler"],
      ["code", "code"],
      ["pre", "pre"],
      ["blockquote", "blockquote"],
    ];
    for (const [tag, type] of cases) {
      expect(parse(`x <${tag}>inside</${tag}> y`, "HTML")).toEqual({
        text: "x inside y",
        entities: [entity(type, 2, 6)],
      });
    }
    expect(parse('<span class="tg-spoiler">s</span>', "HTML").entities).toEqual([entity("spoiler", 0, 1)]);
    expect(parse("<B>x</B><EM>y</eM>", "HTML").entities).toEqual([entity("bold", 0, 1), entity("italic", 1, 1)]);
  });

  test("nested entities as in the documentation", () => {
    const html =
      '<b>bold <i>italic bold <s>italic bold strikethrough <span class="tg-spoiler">italic bold strikethrough spoiler</span></s> <u>underline italic bold</u></i> bold</b>';
    expect(parse(html, "HTML")).toEqual(DOCUMENTED_NESTING);
  });

  test("links: href normalized, bare domain gets a scheme, invalid links leave plain text", () => {
    expect(parse('<a href="http://www.example.com">inline URL</a>', "HTML").entities).toEqual([
      entity("text_link", 0, 10, { url: "http://www.example.com/" }),
    ]);
    expect(parse("<a href='Example.COM/a b'>x</a>", "HTML").entities).toEqual([
      entity("text_link", 0, 1, { url: "http://example.com/a%20b" }),
    ]);
    expect(parse('<a href="tg://user?id=123456789">m</a>', "HTML").entities).toEqual([
      entity("text_link", 0, 1, { url: "tg://user?id=123456789" }),
    ]);
    expect(parse('<a href="https://a.com/?q=1&amp;r=2">x</a>', "HTML").entities[0]!.url).toBe("https://a.com/?q=1&r=2");
    expect(parse("<a>https://site.org</a>", "HTML").entities).toEqual([
      entity("text_link", 0, 16, { url: "https://site.org/" }),
    ]);
    for (const href of ["javascript:alert(1)", "ftp://a.com", "nodot", ""]) {
      expect(parse(`<a href="${href}">x</a>`, "HTML")).toEqual({ text: "x", entities: [] });
    }
  });

  test("pre with a language, code alone drops it", () => {
    expect(parse('<pre><code class="language-python">print(1)</code></pre>', "HTML")).toEqual({
      text: "print(1)",
      entities: [entity("pre", 0, 8, { language: "python" })],
    });
    expect(parse('<code class="language-python">x</code>', "HTML").entities).toEqual([entity("code", 0, 1)]);
    expect(parse("<pre>a\n  b</pre>", "HTML")).toEqual({ text: "a\n  b", entities: [entity("pre", 0, 5)] });
  });

  test("code and pre contain no other entity; styles around code are split", () => {
    expect(parse("<code><b>x</b></code>", "HTML").entities).toEqual([entity("code", 0, 1)]);
    expect(parse("<b>a<code>x</code>b</b>", "HTML").entities).toEqual([
      entity("bold", 0, 1),
      entity("code", 1, 1),
      entity("bold", 2, 1),
    ]);
    // Links and code never overlap: the one starting first (then the longer, then code) stays.
    expect(parse('<a href="https://a.com">a<code>x</code></a>', "HTML").entities).toEqual([
      entity("text_link", 0, 2, { url: "https://a.com/" }),
    ]);
    expect(parse('<a href="https://a.com"><code>x</code></a>', "HTML").entities).toEqual([entity("code", 0, 1)]);
    expect(parse("<b>a</b><b>b</b>", "HTML").entities).toEqual([entity("bold", 0, 2)]);
  });

  test("attributes: quoted, unquoted, value-less, references decoded; </> closes any tag", () => {
    expect(parse("<i    aba  =  190azAz-.   >a</i><b aba>b</b><i x='&lt;&quot;'>c</>", "HTML")).toEqual({
      text: "abc",
      entities: [entity("italic", 0, 1), entity("bold", 1, 1), entity("italic", 2, 1)],
    });
    expect(parse('<a href  =  "telegram.org?&lt;"   > </a>', "HTML").entities).toEqual([
      entity("text_link", 0, 1, { url: "http://telegram.org/?<" }),
    ]);
    expect(parse("<a href=Telegram.ORG>x</    >", "HTML").entities).toEqual([
      entity("text_link", 0, 1, { url: "http://telegram.org/" }),
    ]);
    // Without href the text is the link, and must be one exactly.
    expect(parse("<a>telegram.org </a>", "HTML").entities).toEqual([]);
    expect(parse("<a>https://telegram.org/asdsa?asdasdwe#12e3we</a>", "HTML").entities).toEqual([
      entity("text_link", 0, 42, { url: "https://telegram.org/asdsa?asdasdwe#12e3we" }),
    ]);
  });

  test("blockquote, expandable blockquote and custom emoji", () => {
    expect(parse('<blockquote   cite="" x y>a&lt;<pre  >b;</></>', "HTML").entities).toEqual([
      entity("blockquote", 0, 4),
      entity("pre", 2, 2),
    ]);
    expect(parse("<blockquote expandable=false>q</blockquote>", "HTML").entities).toEqual([
      entity("expandable_blockquote", 0, 1),
    ]);
    expect(parse("<blockquote>a\nb</blockquote>c", "HTML").entities).toEqual([entity("blockquote", 0, 3)]);
    expect(parse("<blockquote expandable>q</blockquote>", "HTML").entities).toEqual([
      entity("expandable_blockquote", 0, 1),
    ]);
    expect(parse('<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>', "HTML").entities).toEqual([
      entity("custom_emoji", 0, 2, { custom_emoji_id: "5368324170671202286" }),
    ]);
    parseFails('<tg-emoji emoji-id="x">👍</tg-emoji>', "HTML", "Invalid custom emoji identifier specified");
  });

  test("character references: the four named ones and numeric ones; others stay text", () => {
    expect(parse("&lt;b&gt; &amp; &quot; &#65;&#x42;&#X43; &#128512;", "HTML").text).toBe('<b> & " ABC 😀');
    expect(parse("&nbsp; &copy; &ltx; &#0; &#; & alone", "HTML").text).toBe("&nbsp; &copy; &ltx; &#0; &#; & alone");
    expect(parse("&lt &gt", "HTML").text).toBe("< >");
  });

  test("whitespace and newlines are kept; empty entities dropped; UTF-16 offsets", () => {
    expect(parse("  <b>a\n\n  b</b>\t", "HTML")).toEqual({ text: "  a\n\n  b\t", entities: [entity("bold", 2, 6)] });
    expect(parse("<b></b><i>x</i>", "HTML").entities).toEqual([entity("italic", 0, 1)]);
    expect(parse("😀 <b>é😀</b>", "HTML").entities).toEqual([entity("bold", 3, 3)]);
  });

  test("errors name the problem and the UTF-8 byte offset", () => {
    parseFails("<blink>x</blink>", "HTML", 'Unsupported start tag "blink" at byte offset 0');
    parseFails("é😀<br>", "HTML", 'Unsupported start tag "br" at byte offset 6');
    parseFails("a < b", "HTML", 'Unsupported start tag "" at byte offset 2');
    parseFails("<b>x</i>", "HTML", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"');
    parseFails("x</b>", "HTML", "Unexpected end tag at byte offset 1");
    parseFails("<b>x", "HTML", 'Can\'t find end tag corresponding to start tag "b"');
    parseFails("🏟 🏟&lt;<i    aba>", "HTML", 'Can\'t find end tag corresponding to start tag "i"');
    parseFails("<b>x</b", "HTML", "Unclosed end tag at byte offset 4");
    parseFails("<b", "HTML", "Unclosed start tag at byte offset 0");
    parseFails('<a href="x>y', "HTML", "Unclosed start tag at byte offset 0");
    parseFails("🏟 🏟&lt;<i    aba  =  ", "HTML", 'Unclosed start tag "i" at byte offset 13');
    parseFails("🏟 🏟&lt;<i    aba  =  190azAz-.,", "HTML", "Unexpected end of name token at byte offset 27");
    parseFails("🏟 🏟&lt;</", "HTML", "Unexpected end tag at byte offset 13");
    parseFails(
      "&#xDFDF",
      "HTML",
      "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units",
    );
    parseFails('<a ="x">y</a>', "HTML", 'Empty attribute name in the tag "a" at byte offset 0');
    parseFails('ab<a href=x"y">z</a>', "HTML", "Unexpected end of name token at byte offset 10");
    parseFails("<span>x</span>", "HTML", 'Tag "span" must have class "tg-spoiler" at byte offset 0');
    parseFails(
      "&#xD83D;",
      "HTML",
      "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units",
    );
  });
});
