#!/usr/bin/env bun
/**
 * The web app's budgets (issue 13), measured in chromium against a server on loopback:
 *   - JavaScript of the first screen, gzip: every script the page loaded until the first
 *     screen stood (the sign-in form signed out; the feed with its posts signed in)
 *   - first screen rendered: navigation start → the screen's content is in the DOM, median of
 *     cold loads (new browser profile each, so no cache)
 *   - scrolling a feed of 1,000 loaded posts: the longest task while scrolling top to bottom
 * A benchmark, not a test: numbers depend on the machine (docs/benchmarks.md has the current figures).
 *
 * Usage: bun scripts/bench-web.ts [--runs 10] [--posts 1000] [--locale ru-RU]
 * (--locale: the browser's language, so the first screen loads that language's catalog)
 */
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { launchBrowser, newPerson, signedInPage } from "../src/testing/browser";
import { quickPerson } from "../src/testing/fixtures";
import { startTestServer } from "../src/testing/server";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg("--runs", 10);
const POSTS = arg("--posts", 1000);
const localeAt = process.argv.indexOf("--locale");
const locale = localeAt > 0 ? process.argv[localeAt + 1] : undefined;

const server = await startTestServer();
const browser = await launchBrowser();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Records the scripts a page loads (URL → gzip size) from now on. */
function recordScripts(page: Page): Map<string, number> {
  const sizes = new Map<string, number>();
  page.on("response", async (res) => {
    if (res.request().resourceType() !== "script") return;
    const body = await res.body().catch(() => null);
    if (body) sizes.set(new URL(res.url()).pathname, gzipSync(body, { level: 9 }).length);
  });
  return sizes;
}

/** ms from navigation start until SELECTOR is in the DOM, taken inside the page. */
async function timeTo(page: Page, url: string, selector: string): Promise<number> {
  await page.addInitScript((sel: string) => {
    const w = window as unknown as { __shown?: number };
    new MutationObserver((_, obs) => {
      if (document.querySelector(sel)) {
        w.__shown = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  }, selector);
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __shown?: number }).__shown !== undefined, null, {
    timeout: 15_000,
  });
  return page.evaluate(() => (window as unknown as { __shown: number }).__shown);
}

try {
  const author = await quickPerson(server, { username: "bench_author" });
  const now = server.clock.now();
  // 1,000 posts written straight to the database (the API's hourly post limit is for people)
  await server.app.db
    .insertInto("posts")
    .values(
      Array.from({ length: POSTS }, (_, i) => ({
        cuid: `benchpost${String(i).padStart(6, "0")}`,
        author_id: author.user.id,
        content: `Post number ${i}: a line of text long enough to wrap on a phone, with a #hashtag and a mention of @bench_author.`,
        created_at: now - (POSTS - i) * 1000,
      })),
    )
    .execute();

  const results: Record<string, string> = {};
  for (const [label, signedIn, selector] of [
    ["sign-in screen (signed out)", false, "form input[type=email]"],
    ["feed with posts (signed in)", true, "article.post"],
  ] as const) {
    const times: number[] = [];
    let js = new Map<string, number>();
    for (let i = 0; i < RUNS; i++) {
      const person = signedIn
        ? await signedInPage(browser, server, undefined, { locale })
        : await newPerson(browser, server.url, { locale });
      // signedInPage opened the feed once to set up; measure a fresh navigation in a fresh page
      const page = await person.context.newPage();
      const scripts = recordScripts(page);
      times.push(await timeTo(page, `${server.url}/`, selector));
      await page.waitForLoadState("networkidle");
      js = scripts;
      await person.context.close();
    }
    const total = [...js.values()].reduce((a, b) => a + b, 0);
    results[label] =
      `JS ${(total / 1024).toFixed(1)} KB gzip in ${js.size} files; first screen median ${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${RUNS} cold loads)`;
  }

  // scrolling 1,000 loaded posts: load every page, then scroll through while recording long tasks
  const reader = await signedInPage(browser, server, undefined, { viewport: { width: 390, height: 844 }, locale });
  const page = reader.page;
  await page.locator("article.post").first().waitFor();
  const loadStart = performance.now();
  // each page arrives as the end of the list comes into view; bounded in steps and in time
  for (let i = 0, count = 0; i < 400 && count < POSTS && performance.now() - loadStart < 180_000; i++) {
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    await page
      .waitForFunction((n: number) => document.querySelectorAll("article.post").length > n, count, { timeout: 10_000 })
      .catch(() => undefined);
    count = await page.locator("article.post").count();
  }
  const loaded = await page.locator("article.post").count();
  const loadMs = performance.now() - loadStart;
  const longTasks = await page.evaluate(async () => {
    const tasks: number[] = [];
    const obs = new PerformanceObserver((list) => list.getEntries().forEach((e) => tasks.push(e.duration)));
    obs.observe({ type: "longtask", buffered: false });
    scrollTo(0, 0);
    await new Promise((r) => setTimeout(r, 300));
    const height = document.body.scrollHeight;
    for (let y = 0; y < height; y += 400) {
      scrollTo(0, y);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
    await new Promise((r) => setTimeout(r, 300));
    obs.disconnect();
    return tasks;
  });
  await reader.context.close();
  results[`scroll ${loaded} loaded posts (390 px wide)`] =
    `${longTasks.length} long tasks over 50 ms while scrolling${longTasks.length ? ` (longest ${Math.max(...longTasks).toFixed(0)} ms)` : ""}; loading them by infinite scroll took ${(loadMs / 1000).toFixed(1)} s`;

  for (const [k, v] of Object.entries(results)) console.log(`${k}: ${v}`);
} finally {
  await browser.close();
  await server.stop();
}
