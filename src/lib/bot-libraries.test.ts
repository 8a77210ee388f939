import { expect, test } from "bun:test";
import { BOT_API_DOC, withCurrentSnippets } from "../../scripts/bot-snippets";
import { botSnippets, libraryApiRoots } from "./bot-libraries";

test("docs/bot-api.md shows the starter bots the app shows (run `bun scripts/bot-snippets.ts` after changing them)", async () => {
  const doc = await Bun.file(BOT_API_DOC).text();
  expect(doc).toBe(withCurrentSnippets(doc));
});

test("each starter bot is filled with the root its library takes and the token, quoted", () => {
  const snippets = botSnippets("https://social.example.com/", "7000000012:AbC-d_E");
  const { libraries } = libraryApiRoots("https://social.example.com/");
  expect(snippets.map((s) => s.id)).toEqual([
    "grammy",
    "telegraf",
    "node-telegram-bot-api",
    "python-telegram-bot",
    "python-telegram-bot-13",
  ]);
  for (const s of snippets) {
    expect(s.code).toContain(JSON.stringify(libraries[s.library]));
    expect(s.code).toContain('"7000000012:AbC-d_E"');
    expect(s.code).not.toContain("social.example.com//");
  }
});
