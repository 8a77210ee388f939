import { describe, expect, test } from "bun:test";
import { entity, parse, parseFails } from "../../testing/formatting";

describe("Markdown (legacy)", () => {
  test("bold, italic, code, pre with language, links", () => {
    expect(parse("*bold text* _italic text_ `code` [URL](http://www.example.com/)", "Markdown")).toEqual({
      text: "bold text italic text code URL",
      entities: [
        entity("bold", 0, 9),
        entity("italic", 10, 11),
        entity("code", 22, 4),
        entity("text_link", 27, 3, { url: "http://www.example.com/" }),
      ],
    });
    expect(parse("```python\nprint(1)\n```", "markdown")).toEqual({
      text: "print(1)\n",
      entities: [entity("pre", 0, 9, { language: "python" })],
    });
    expect(parse("```\nx```", "Markdown").entities).toEqual([entity("pre", 0, 1)]);
    expect(parse("[mention](tg://user?id=123456789)", "Markdown").entities).toEqual([
      entity("text_link", 0, 7, { url: "tg://user?id=123456789" }),
    ]);
  });

  test("no nesting, no reserved characters, \\ escapes only _ * ` [", () => {
    expect(parse("*a _b_ c*", "Markdown")).toEqual({ text: "a _b_ c", entities: [entity("bold", 0, 7)] });
    expect(parse("Version 1.0 (beta) - ok!", "Markdown")).toEqual({ text: "Version 1.0 (beta) - ok!", entities: [] });
    expect(parse("\\_snake\\_case\\_ \\* \\` \\[ \\.", "Markdown").text).toBe("_snake_case_ * ` [ \\.");
    expect(parse("_snake_\\__case_", "Markdown")).toEqual({
      text: "snake_case",
      entities: [entity("italic", 0, 5), entity("italic", 6, 4)],
    });
    expect(parse("**", "Markdown")).toEqual({ text: "", entities: [] });
  });

  test("an unclosed entity is an error with its byte offset", () => {
    parseFails("*bold", "Markdown", "Can't find end of the entity starting at byte offset 0");
    parseFails("é _x", "Markdown", "Can't find end of the entity starting at byte offset 3");
    parseFails("```pre``", "Markdown", "Can't find end of the entity starting at byte offset 0");
    parseFails("[a", "Markdown", "Can't find end of the entity starting at byte offset 0");
  });
});
