import { describe, expect, test } from "bun:test";
import { renderHtml, renderMarkdownV2 } from "./index.ts";
import { entity, parse } from "../../testing/formatting";

describe("rendering", () => {
  const text = "bold <it> & link code pre";
  const entities = [
    entity("bold", 0, 4),
    entity("italic", 5, 4),
    entity("text_link", 12, 4, { url: "https://a.com/x)y" }),
    entity("code", 17, 4),
    entity("pre", 22, 3, { language: "js" }),
  ];

  test("HTML escapes text and attributes and writes each entity's tag", () => {
    expect(renderHtml(text, entities)).toBe(
      '<b>bold</b> <i>&lt;it&gt;</i> &amp; <a href="https://a.com/x)y">link</a> <code>code</code> <pre><code class="language-js">pre</code></pre>',
    );
    expect(renderHtml('q"', [entity("blockquote", 0, 2), entity("spoiler", 0, 1)])).toBe(
      "<blockquote><tg-spoiler>q</tg-spoiler>&quot;</blockquote>",
    );
    expect(
      renderHtml("m e", [
        entity("text_mention", 0, 1, { user: { id: 7 } }),
        entity("custom_emoji", 2, 1, { custom_emoji_id: "5" }),
      ]),
    ).toBe('<a href="tg://user?id=7">m</a> <tg-emoji emoji-id="5">e</tg-emoji>');
    // Entities the server finds by itself are plain text; out-of-range ones are ignored.
    expect(renderHtml("/start", [entity("bot_command", 0, 6), entity("bold", 4, 9)])).toBe("/start");
  });

  test("MarkdownV2 escapes the reserved characters and writes each entity's markers", () => {
    expect(renderMarkdownV2(text, entities)).toBe("*bold* _<it\\>_ & [link](https://a.com/x\\)y) `code` ```js\npre```");
    expect(renderMarkdownV2("_*[]()~`>#+-=|{}.!\\", [])).toBe(
      "\\_\\*\\[\\]\\(\\)\\~\\`\\>\\#\\+\\-\\=\\|\\{\\}\\.\\!\\\\",
    );
    expect(renderMarkdownV2("a`\\b", [entity("code", 0, 4)])).toBe("`a\\`\\\\b`");
    expect(renderMarkdownV2("q1\nq2\nx", [entity("expandable_blockquote", 0, 6)])).toBe(">q1\n>q2||\nx");
    expect(renderMarkdownV2("q1\nq2", [entity("expandable_blockquote", 0, 5)])).toBe(">q1\n>q2||");
    // A blockquote that does not cover whole lines cannot be written; its text stays.
    expect(renderMarkdownV2("ab", [entity("blockquote", 1, 1)])).toBe("ab");
  });

  test("italic next to underline gets a separator so it reads back the same", () => {
    const both = [entity("italic", 0, 5), entity("underline", 0, 5)];
    const markdown = renderMarkdownV2("hello", both);
    expect(markdown).toBe("_``__hello__``_");
    expect(parse(markdown, "MarkdownV2")).toEqual({ text: "hello", entities: both });
  });

  test("two quotes in a row stay two quotes", () => {
    const quotes = [entity("blockquote", 0, 2), entity("blockquote", 2, 1)];
    const markdown = renderMarkdownV2("a\nb", quotes);
    expect(markdown).toBe(">a\n``>b");
    expect(parse(markdown, "MarkdownV2")).toEqual({ text: "a\nb", entities: quotes });
  });
});
