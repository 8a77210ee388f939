/**
 * Writes the starter bots of src/lib/bot-libraries.ts into docs/bot-api.md, between its
 * markers, so the documentation shows what the app shows. src/lib/bot-libraries.test.ts fails
 * while the two differ.
 */
import { join } from "node:path";
import { botSnippetsMarkdown, DOCS_SNIPPETS_END, DOCS_SNIPPETS_START } from "../src/lib/bot-libraries";

export const BOT_API_DOC = join(import.meta.dir, "..", "docs", "bot-api.md");

/** DOC with its starter-bots section replaced by the current rendering. */
export function withCurrentSnippets(doc: string): string {
  const start = doc.indexOf(DOCS_SNIPPETS_START);
  const end = doc.indexOf(DOCS_SNIPPETS_END);
  if (start < 0 || end < start) throw new Error("docs/bot-api.md has no starter-bots markers");
  return doc.slice(0, start) + botSnippetsMarkdown() + doc.slice(end + DOCS_SNIPPETS_END.length);
}

if (import.meta.main) {
  const doc = await Bun.file(BOT_API_DOC).text();
  await Bun.write(BOT_API_DOC, withCurrentSnippets(doc));
}
