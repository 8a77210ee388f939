import { describe, expect, test } from "bun:test";
import { insertPick, tokenAtCaret, usernamesIn } from "../web/lib/composer-token";

// The composers' @/# suggestions, in process: which word the caret is in, and what a pick leaves.
const at = (textWithCaret: string) => {
  const caret = textWithCaret.indexOf("|");
  return tokenAtCaret(textWithCaret.replace("|", ""), caret);
};

describe("the token at the caret", () => {
  test("a mention or hashtag being typed, at the start or after a space or punctuation", () => {
    expect(at("@al|")).toEqual({ kind: "mention", query: "al", start: 0, end: 3 });
    expect(at("hi @al|")).toEqual({ kind: "mention", query: "al", start: 3, end: 6 });
    expect(at("(@Bob_1|)")).toEqual({ kind: "mention", query: "Bob_1", start: 1, end: 7 });
    expect(at("see #ja|")).toEqual({ kind: "hashtag", query: "ja", start: 4, end: 7 });
    expect(at("#Ёлк|")).toEqual({ kind: "hashtag", query: "Ёлк", start: 0, end: 4 });
    expect(at("a\n#tag|")).toEqual({ kind: "hashtag", query: "tag", start: 2, end: 6 });
  });

  test("the word runs on past the caret, so a pick replaces all of it", () => {
    expect(at("hi @al|ice and")).toEqual({ kind: "mention", query: "al", start: 3, end: 9 });
    expect(at("#ja|pan!")).toEqual({ kind: "hashtag", query: "ja", start: 0, end: 6 });
  });

  test("nothing where the server would link nothing", () => {
    expect(at("@|")).toBeNull(); // nothing typed after the sign yet
    expect(at("#|")).toBeNull();
    expect(at("mail me at ann@ex|")).toBeNull(); // an e-mail address
    expect(at("@@al|")).toBeNull();
    expect(at("http://x.org/#fr|")).toBeNull(); // a URL's fragment
    expect(at("&#39|")).toBeNull();
    expect(at("word#tag|")).toBeNull();
    expect(at("@al ice|")).toBeNull(); // the caret left the word
    expect(at("@al-|")).toBeNull();
    expect(at(`@${"a".repeat(33)}|`)).toBeNull(); // longer than any username
    expect(at("plain text|")).toBeNull();
  });

  test("the caret in the middle of other text", () => {
    expect(at("one @a| two #b")).toEqual({ kind: "mention", query: "a", start: 4, end: 6 });
    expect(at("one @a two #b|")).toEqual({ kind: "hashtag", query: "b", start: 11, end: 13 });
  });
});

describe("a pick", () => {
  test("replaces the word with @username and a space, the caret after them", () => {
    const text = "hi @al";
    expect(insertPick(text, tokenAtCaret(text, 6)!, "alice")).toEqual({ text: "hi @alice ", caret: 10 });
  });

  test("reuses a space already after the word and keeps the rest", () => {
    const text = "hi @al and #ja more";
    expect(insertPick(text, tokenAtCaret(text, 6)!, "alice")).toEqual({ text: "hi @alice and #ja more", caret: 10 });
    expect(insertPick(text, tokenAtCaret(text, 14)!, "japan")).toEqual({ text: "hi @al and #japan more", caret: 18 });
  });

  test("replaces the part of the word after the caret too", () => {
    const text = "@alxyz!";
    expect(insertPick(text, tokenAtCaret(text, 3)!, "alice")).toEqual({ text: "@alice !", caret: 7 });
  });
});

test("usernames typed into a people field", () => {
  expect(usernamesIn("@ann, bob  carl;dan")).toEqual(["ann", "bob", "carl", "dan"]);
  expect(usernamesIn("Ann ann @ANN bob")).toEqual(["Ann", "bob"]);
  expect(usernamesIn(" , @ ")).toEqual([]);
});
