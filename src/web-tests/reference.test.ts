import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { newPerson, pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// The reference pages (/api/docs, /api/bot-docs) in Chromium: HTML the instance renders from its own documents.
const suite = browserSuite();

/** Every URL the page requested, to check that nothing left the instance. */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  return urls;
}

const SHOTS = join(import.meta.dir, "../../.tmp/reference");

describe("the served API reference", () => {
  suite.it(
    "/api/docs shows the Client API as a page the server renders, with no request elsewhere",
    async () => {
      const { page } = await newPerson(suite.browser, suite.server.url);
      suite.watch(page);
      const urls = requestsOf(page);
      // the first request builds the document and its page: slow on a busy machine
      await page.goto("/api/docs", { timeout: 45_000 });
      await page.getByRole("heading", { level: 1, name: /socialctl Client API/ }).waitFor({ timeout: 30_000 });
      // the areas are sections listed at the top; an operation opens to its body and answers
      await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "posts" }).click();
      const posts = page.getByRole("region", { name: "posts" });
      await posts.getByText("Publish a post", { exact: false }).first().click();
      await posts.locator("details[open]").getByRole("heading", { name: "Body" }).first().waitFor();
      // the page holds every operation's schema, too much for axe in a test's time: the frame and
      // one area are checked, the other areas (made by the same code) taken out first
      await page.evaluate(() => document.querySelectorAll("main > section:not(#tag-posts)").forEach((s) => s.remove()));
      await expectAccessible(page);
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, "client-api.png") });
      const outside = urls.filter((u) => !u.startsWith(suite.server.url) && !u.startsWith("data:"));
      expect(outside).toEqual([]);
      const documentLink = page.getByRole("link", { name: "OpenAPI document (JSON)" });
      expect(await documentLink.getAttribute("href")).toBe("/api/openapi.json");
      expect(pageProblems(page)).toEqual([]);
    },
    120_000,
  );

  suite.it("/api/bot-docs lists the Bot API methods and what differs from Telegram's", async () => {
    const { page } = await newPerson(suite.browser, suite.server.url);
    suite.watch(page);
    const urls = requestsOf(page);
    await page.goto("/api/bot-docs", { timeout: 45_000 });
    await page.getByRole("heading", { level: 1, name: /socialctl Bot API/ }).waitFor({ timeout: 30_000 });
    await page.getByText("Differences from the Telegram Bot API").waitFor();
    // a link to an operation opens it
    await page.goto("/api/bot-docs#operations-methods-sendMessage");
    const sendMessage = page.locator("#operations-methods-sendMessage");
    expect(await sendMessage.getAttribute("open")).not.toBeNull();
    // the parameter's limit, as the schema states it
    await sendMessage
      .getByText(/4096 characters/)
      .first()
      .waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "bot-api.png") });
    expect(urls.filter((u) => !u.startsWith(suite.server.url) && !u.startsWith("data:"))).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
  });
});
