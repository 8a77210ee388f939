import { describe, expect, test } from "bun:test";
import { excerpt, findWords, searchWords } from "../web/lib/highlight";

// The search result's marked words (src/web/lib/highlight.ts): pure logic, in process.

const marked = (text: string, q: string, max?: number) =>
  excerpt(text, q, max)
    .map((p) => (p.hit ? `[${p.text}]` : p.text))
    .join("");

describe("highlight", () => {
  test("words are found as the index finds them: case, Latin accents and ё aside, at a word's start", () => {
    expect(searchWords('  Café, "ЁЖИК" ')).toEqual(["cafe", "ежик"]);
    expect(marked("Meet me at the Café today", "cafe")).toBe("Meet me at the [Café] today");
    expect(marked("Ёжик в тумане", "ежик")).toBe("[Ёжик] в тумане");
    expect(marked("Встреча в КАФЕ завтра", "кафе")).toBe("Встреча в [КАФЕ] завтра");
    // the last word is a prefix; inside a word is no match
    expect(marked("lighthouse and highlight", "light")).toBe("[light]house and highlight");
    expect(marked("party🎉time", "🎉")).toBe("party[🎉]time");
    expect(marked("bun bun", "bun")).toBe("[bun] [bun]");
    expect(findWords("nothing to see", [])).toEqual([]);
  });

  test("a long text is cut around the first word found, at spaces, with ellipses", () => {
    const long = `${"alpha ".repeat(40)}needle ${"omega ".repeat(40)}`.trim();
    const shown = marked(long, "needle", 60);
    expect(shown.startsWith("…")).toBe(true);
    expect(shown.endsWith("…")).toBe(true);
    expect(shown).toContain("[needle]");
    expect(shown.length).toBeLessThanOrEqual(64);
    // cut at spaces: no word is shown in part
    expect(
      shown
        .slice(1, -1)
        .trim()
        .split(" ")
        .every((w) => ["alpha", "omega", "[needle]"].includes(w)),
    ).toBe(true);
    // a short text stays whole; without a match it starts at the beginning
    expect(marked("short text", "zzz")).toBe("short text");
    expect(marked(long, "zzz", 30).startsWith("alpha")).toBe(true);
  });
});
