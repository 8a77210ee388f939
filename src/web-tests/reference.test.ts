import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { newPerson, pageProblems } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// The reference pages (/api/docs, /api/bot-docs) in Chromium: rendered from files the instance serves itself.
const suite = browserSuite();

/** Every URL the page requested, to check that nothing left the instance. */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  return urls;
}

const SHOTS = join(import.meta.dir, "../../.tmp/reference");

describe("the served API reference", () => {
  suite.it("/api/docs renders the Client API from the instance's own files, with no request elsewhere", async () => {
    const { page } = await newPerson(suite.browser, suite.server.url);
    suite.watch(page);
    const urls = requestsOf(page);
    await page.goto("/api/docs");
    // the first visit also compresses Swagger UI's files and builds the document: slow on a busy machine
    await page.getByRole("heading", { name: /socialctl Client API/ }).waitFor({ timeout: 30_000 });
    // the areas are tags; opening one shows its operations with their summaries
    await page.locator("#operations-tag-posts").click();
    await page.getByText("Publish a post", { exact: false }).first().waitFor();
    await page.getByRole("button", { name: /Authorize/ }).waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "client-api.png") });
    const outside = urls.filter((u) => !u.startsWith(suite.server.url) && !u.startsWith("data:"));
    expect(outside).toEqual([]);
    expect(urls).toContain(`${suite.server.url}/api/openapi.json`);
    expect(pageProblems(page)).toEqual([]);
  });

  suite.it("/api/bot-docs lists the Bot API methods and what differs from Telegram's", async () => {
    const { page } = await newPerson(suite.browser, suite.server.url);
    suite.watch(page);
    const urls = requestsOf(page);
    await page.goto("/api/bot-docs");
    await page.getByRole("heading", { name: /socialctl Bot API/ }).waitFor({ timeout: 30_000 });
    await page.getByText("Differences from the Telegram Bot API").waitFor();
    await page.locator("#operations-tag-methods").click();
    await page.locator("#operations-methods-sendMessage").waitFor();
    const sendMessage = page.locator("#operations-methods-sendMessage");
    await sendMessage.locator(".opblock-summary-control").click();
    await sendMessage.getByRole("tab", { name: "Schema" }).first().click();
    // the parameter's limit, as the schema states it
    await sendMessage.getByText(/4096/).first().waitFor();
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "bot-api.png") });
    expect(urls.filter((u) => !u.startsWith(suite.server.url) && !u.startsWith("data:"))).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
  });
});
