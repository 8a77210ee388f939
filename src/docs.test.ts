import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// The README is what a newcomer reads first, so it stays short and every link in it and in docs/
// must lead somewhere: a moved or renamed section breaks this test, not a reader's click.

const ROOT = join(import.meta.dir, "..");
const README_MAX_LINES = 700;

const documents = [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(ROOT, "docs", name)),
];

/** The text outside fenced code blocks and inline code, where a `](` is markup and not an example. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/(`+)[^\n]*?[^`\n]\1(?!`)/g, "");
}

/** Anchors of a document's headings, as GitHub makes them (a repeated heading gets -1, -2, …). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link target of a document (images included), without web and mail links. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("documentation", () => {
  test.each(documents.map((path) => [relative(ROOT, path), path]))(
    "every relative link of %s leads to a file, folder or heading that exists",
    async (_, path) => {
      const text = await Bun.file(path).text();
      const broken: string[] = [];
      for (const target of relativeLinks(text)) {
        const [file, anchor] = target.split("#", 2) as [string, string | undefined];
        const linked = file === "" ? path : join(dirname(path), decodeURIComponent(file));
        if (!existsSync(linked)) {
          broken.push(`${target}: nothing at ${relative(ROOT, linked)}`);
          continue;
        }
        if (anchor !== undefined && linked.endsWith(".md")) {
          if (!headingAnchors(await Bun.file(linked).text()).has(anchor))
            broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, linked)}`);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  test("the README is short and opens with a table of contents", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    expect(readme.split("\n").length).toBeLessThan(README_MAX_LINES);
    const contents = readme.slice(0, readme.indexOf("\n## "));
    const entries = [...contents.matchAll(/^- \[[^\]]+\]\(#([^)]+)\)$/gm)].map(([, anchor]) => anchor!);
    expect(entries.length).toBeGreaterThanOrEqual(5);
    const anchors = headingAnchors(readme);
    expect(entries.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });

  test("the README links every file of docs/", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    const linked = new Set(relativeLinks(readme).map((target) => target.split("#")[0]));
    const guides = documents.slice(1).map((path) => relative(ROOT, path));
    expect(guides.filter((guide) => !linked.has(guide))).toEqual([]);
  });

  test("anchors are made as GitHub makes them", () => {
    const anchors = headingAnchors("# Hot paths: `npm run bench`\n## Person → bot delivery\n## Tests\n## Tests\n");
    expect([...anchors]).toEqual(["hot-paths-npm-run-bench", "person--bot-delivery", "tests", "tests-1"]);
  });
});
