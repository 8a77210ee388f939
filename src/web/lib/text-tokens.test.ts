import { describe, expect, test } from "bun:test";
import { textTokens } from "./text-tokens";

const linked = (text: string, commands = false) =>
  textTokens(text, { commands })
    .filter((token) => token.kind !== "text")
    .map((token) => `${token.kind} ${token.text}`);

describe("the links the app shows in a text", () => {
  test("mentions, hashtags and web links, the rest as it is", () => {
    expect(textTokens("hi @ada_l, see #Tea and https://example.com/a.")).toEqual([
      { kind: "text", text: "hi " },
      { kind: "mention", text: "@ada_l" },
      { kind: "text", text: ", see " },
      { kind: "hashtag", text: "#Tea" },
      { kind: "text", text: " and " },
      { kind: "link", text: "https://example.com/a" },
      { kind: "text", text: "." },
    ]);
    expect(linked("@ada at the start, #чай in Russian, (https://example.com)")).toEqual([
      "mention @ada",
      "hashtag #чай",
      "link https://example.com",
    ]);
  });

  test("what the server does not link either: an e-mail address, a URL's fragment, a short name, a tag of digits", () => {
    expect(linked("write to ada@example.com")).toEqual([]);
    expect(linked("https://example.com/page#part")).toEqual(["link https://example.com/page#part"]);
    expect(linked("a&#39;b and x/#y")).toEqual([]);
    expect(linked("@al is too short, @ada ok")).toEqual(["mention @ada"]);
    expect(linked("#123 is a number, #a1 a tag")).toEqual(["hashtag #a1"]);
    expect(linked("@this_name_is_far_too_long_for_anyone")).toEqual([]);
  });

  test("bot commands, in a chat only, at a word's start", () => {
    expect(linked("/start or /help@some_bot, not a/b", true)).toEqual(["command /start", "command /help@some_bot"]);
    expect(linked("/start", false)).toEqual([]);
  });
});
