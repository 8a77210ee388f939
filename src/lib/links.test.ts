import { describe, expect, test } from "bun:test";
import { firstLink } from "./links";

describe("firstLink", () => {
  test("the first http(s) link, without the punctuation a sentence puts after it", () => {
    expect(firstLink("see https://example.com/a.")).toBe("https://example.com/a");
    expect(firstLink("(https://example.com/a), then http://other.test")).toBe("https://example.com/a");
    expect(firstLink("wiki https://en.wikipedia.org/wiki/Tea_(drink)!")).toBe(
      "https://en.wikipedia.org/wiki/Tea_(drink)",
    );
    expect(firstLink("HTTPS://Example.COM/Path?q=1#x")).toBe("https://example.com/Path?q=1#x");
  });

  test("nothing for text without a link, other schemes, or a link too long", () => {
    expect(firstLink("no link here")).toBeNull();
    expect(firstLink("ftp://example.com/file and mailto:me@example.com")).toBeNull();
    expect(firstLink("https://")).toBeNull();
    expect(firstLink(`https://example.com/${"a".repeat(2100)}`)).toBeNull();
  });
});
