import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "kysely";
import { testsOnPostgres } from "../../testing/engine";
import { startTestServer, type TestServer } from "../../testing/server";
import { migrations } from ".";

/*
 * PostgreSQL: migration 20261208100100_message_lexemes_inlined rewrites social_message_tsvector
 * so the index pass can inline it. The lexemes already stored stay valid only if every text
 * gives what it gave before, emoji and all.
 */

const TEXTS = [
  "Hello from the benchmark",
  "Ёлка в лесу, ёж и ЁЖ",
  "café résumé naïve Ångström",
  "see you at 5 🙂🎉 ok",
  "ok🙂ok🙂🙂",
  "🙂",
  "👨‍👩‍👧 family, 👍🏽 thumbs, 🇺🇦🇯🇵 flags",
  "keycap 1️⃣ and ☀️ sun, ⭐ star, ✅ done, ♻ and ⬛",
  "🀄 mahjong and 🫠 melting, at the ranges' ends",
  "mixed: 日本語のテキスト and العربية and עברית",
  "punctuation!!! ... — «quotes» “more” 'single'",
  "",
  "   ",
  "a".repeat(3000) + " 🎉",
  "tab\tand\nnew line 🙂",
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const lexemesOf = async (texts: (string | null)[]) => {
  const out: (string | null)[] = [];
  for (const text of texts) {
    const { rows } = await sql<{ v: string | null }>`SELECT social_message_tsvector(${text})::text AS v`.execute(
      server.app.db,
    );
    out.push(rows[0]!.v);
  }
  return out;
};

test.skipIf(!testsOnPostgres())("every text gives the lexemes it gave before the rewrite, NULL included", async () => {
  const migration = migrations["20261208100100_message_lexemes_inlined"]!;
  const texts = [...TEXTS, null];
  const now = await lexemesOf(texts);
  await migration.down!(server.app.db);
  try {
    expect(await lexemesOf(texts)).toEqual(now);
  } finally {
    await migration.up(server.app.db);
  }
  // the emoji are there, once each
  expect(now[4]).toBe("'ok':1,2 '🙂'");
  expect(now.at(-1)).toBeNull();
});

test.skipIf(!testsOnPostgres())(
  "the index pass computes the lexemes inline, without calling the function",
  async () => {
    const { rows } = await sql<{ "QUERY PLAN": string }>`EXPLAIN VERBOSE
    SELECT social_message_tsvector(content) FROM messages WHERE id = ANY('{1,2}'::bigint[])`.execute(server.app.db);
    const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan).toContain("to_tsvector");
    expect(plan).not.toContain("social_message_tsvector");
  },
);
