import { describe, expect, test } from "bun:test";
import { decodePage, readPagePreview } from "./link-preview";

// The page reader in process; fetching under the outbound policy is src/clientapi/posts/link-preview.test.ts.
const PAGE = new URL("https://example.test/articles/1");

describe("readPagePreview", () => {
  test("OpenGraph first, then Twitter card tags, then <title> and the meta description", () => {
    const html = `<head><title>Title tag</title><meta name="description" content="Meta description">
      <meta name="twitter:title" content="Twitter title"><meta name="twitter:image" content="//cdn.example.test/t.png">
      <meta property="og:site_name" content="Example"></head>`;
    expect(readPagePreview(html, PAGE)).toEqual({
      title: "Twitter title",
      description: "Meta description",
      imageUrl: "https://cdn.example.test/t.png",
      siteName: "Example",
    });
  });

  test("tags quoted in scripts, comments or the body, and svg titles, are not the page's", () => {
    const html = `<head><script>document.write('<meta property="og:title" content="script">')</script>
      <!-- <meta property="og:title" content="comment"> --><svg><title>icon</title></svg><title>Real</title></head>
      <body><meta property="og:description" content="body"></body>`;
    expect(readPagePreview(html, PAGE)).toEqual({ title: "Real", description: null, imageUrl: null, siteName: null });
  });

  test("nothing to show without a title or description; only http(s) images; long text cut", () => {
    expect(readPagePreview("<head><meta property='og:image' content='/a.png'></head>", PAGE)).toBeNull();
    const preview = readPagePreview(
      `<title>${"t".repeat(400)}</title><meta property="og:image" content="javascript:alert(1)">`,
      PAGE,
    )!;
    expect(preview.imageUrl).toBeNull();
    expect([...preview.title!].length).toBe(300);
    expect(preview.title!.endsWith("…")).toBe(true);
  });
});

describe("decodePage", () => {
  const cp1251 = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
  test("the header's charset, else the page's meta charset, else UTF-8", () => {
    expect(decodePage(cp1251, "text/html; charset=windows-1251")).toBe("Привет");
    const meta = new Uint8Array([...new TextEncoder().encode('<meta charset="windows-1251">'), ...cp1251]);
    expect(decodePage(meta, "text/html")).toEndWith("Привет");
    expect(decodePage(new TextEncoder().encode("héllo"), "text/html; charset=nonsense")).toBe("héllo");
  });
});
