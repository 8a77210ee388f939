import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { cookiesOf, pageProblems, expectAccessible, STEP_TIMEOUT_MS, expectFocused } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { postAs } from "../testing/posts";
import { postUpload } from "../testing/uploads";
import type { TestClient } from "../testing/client";

// Images as people see them: the copy that fits the screen, a viewer, descriptions and content warnings.
const suite = browserSuite();
const { it } = suite;

async function uploadPng(client: TestClient, width: number, height: number): Promise<string> {
  const res = await postUpload(client, "post", await pngOf(suite.server.app, width, height), { type: "image/png" });
  expect(res.status).toBe(200);
  return res.body.data.url as string;
}

/** The post page of POST_ID for CLIENT's session in a browser of the given screen. */
async function postPage(
  client: TestClient,
  postId: string,
  screen: { viewport: { width: number; height: number }; deviceScaleFactor: number },
): Promise<Page> {
  const context = await suite.browser.newContext({ baseURL: suite.server.url, ...screen, locale: "en-US" });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  await context.addCookies(cookiesOf(client, suite.server.url));
  const page = await context.newPage();
  suite.watch(page);
  await page.goto(`/posts/${postId}`);
  return page;
}

/** The URL the browser chose for the image named NAME, once it has loaded. */
async function chosenSource(page: Page, name: string | RegExp): Promise<string> {
  const img = page.getByRole("img", { name });
  await img.waitFor();
  await img.evaluate((el: HTMLImageElement) =>
    el.complete && el.naturalWidth > 0 ? undefined : new Promise((r) => el.addEventListener("load", r, { once: true })),
  );
  return img.evaluate((el: HTMLImageElement) => el.currentSrc);
}

describe("web app: images", () => {
  it("a phone at DPR 3 gets the 1280 px copy, a 1x desktop column the 640 px one, neither the original", async () => {
    const author = await quickPerson(suite.server);
    const url = await uploadPng(author.client, 2000, 1500);
    const post = await postAs(author.client, { content: "A wide view", imageUrls: [url], imageAlts: ["A blue sky"] });

    const desktop = await postPage(author.client, post.id, {
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    const img = desktop.getByRole("img", { name: "A blue sky" });
    await img.waitFor();
    expect(await img.getAttribute("srcset")).toMatch(/-t\.webp 320w, .*-d640\.webp 640w, .*-d1280\.webp 1280w$/);
    expect(await img.getAttribute("sizes")).toBeTruthy();
    expect(await chosenSource(desktop, "A blue sky")).toMatch(/-d640\.webp$/);

    const phone = await postPage(author.client, post.id, {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
    });
    expect(await chosenSource(phone, "A blue sky")).toMatch(/-d1280\.webp$/);
    for (const page of [desktop, phone]) {
      expect(pageProblems(page)).toEqual([]);
      await page.context().close();
    }
  });

  it("the viewer shows each image with its description, moves with the arrow keys, closes with Escape and gives focus back", async () => {
    const author = await quickPerson(suite.server);
    const first = await uploadPng(author.client, 1200, 900);
    const second = await uploadPng(author.client, 900, 1200);
    const post = await postAs(author.client, {
      content: "Two pictures",
      imageUrls: [first, second],
      imageAlts: ["A landscape in blue", ""],
    });
    const page = await postPage(author.client, post.id, {
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    const opener = page.getByRole("button", { name: "A landscape in blue" });
    await opener.click();
    const viewer = page.getByRole("dialog", { name: /: 1 of 2$/ });
    await viewer.waitFor();
    await viewer.getByRole("img", { name: "A landscape in blue" }).waitFor();
    await viewer.getByText("A landscape in blue").waitFor();
    expect(await viewer.getByRole("link", { name: "Open original" }).getAttribute("href")).toBe(first);
    await expectAccessible(page);

    await page.keyboard.press("ArrowRight");
    await page.getByRole("dialog", { name: /: 2 of 2$/ }).waitFor();
    await page.getByRole("dialog").getByText("No description").waitFor();
    await page.keyboard.press("ArrowLeft");
    await page.getByRole("dialog", { name: /: 1 of 2$/ }).waitFor();
    await page.getByRole("button", { name: "Next image" }).click();
    await page.getByRole("dialog", { name: /: 2 of 2$/ }).waitFor();

    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expectFocused(opener);
    expect(pageProblems(page)).toEqual([]);
    await page.context().close();
  });

  it("the composer's description becomes the image's alt; a content warning hides the post until Show", async () => {
    const { page, context } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByLabel("What's new?").fill("The ending of the film");
    await page.getByLabel("Content warning").fill("Film spoilers");
    await page.getByLabel("Add images").setInputFiles({
      name: "still.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 800, 600)),
    });
    await page.getByRole("progressbar").waitFor({ state: "detached" });
    await page.getByLabel("Description (alt text)").fill("Two people on a bridge at night");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Post", exact: true }).click();

    const card = page.getByRole("article").filter({ hasText: "Film spoilers" });
    await card.getByText("Content warning:").waitFor();
    expect(await card.getByText("The ending of the film").isVisible()).toBe(false);
    await card.getByRole("button", { name: "Show" }).click();
    await card.getByText("The ending of the film").waitFor();
    const img = card.getByRole("img", { name: "Two people on a bridge at night" });
    await img.waitFor();
    expect(await img.getAttribute("alt")).toBe("Two people on a bridge at night");
    await expectAccessible(page);
    await card.getByRole("button", { name: "Hide" }).click();
    await card.getByText("The ending of the film").waitFor({ state: "hidden" });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("a comment's content warning, given in the comment form, hides its text until Show", async () => {
    const { page, client, context } = await suite.person();
    const post = await postAs(client, "A post about the film");
    await page.goto(`/posts/${post.id}`);
    const form = page.getByRole("region", { name: "Comments" }).locator("form").first();
    await form.getByLabel("Write a comment").fill("The twist is the ending");
    await form.getByLabel("Content warning").fill("Ending spoiler");
    await expectAccessible(page);
    await form.getByRole("button", { name: "Comment", exact: true }).click();

    const comment = page.getByRole("article", { name: /^Comment by / });
    await comment.getByText("Ending spoiler").waitFor();
    expect(await form.getByLabel("Content warning").inputValue()).toBe("");
    expect(await comment.getByText("The twist is the ending").isVisible()).toBe(false);
    await comment.getByRole("button", { name: "Show" }).click();
    await comment.getByText("The twist is the ending").waitFor();
    await comment.getByRole("button", { name: "Hide" }).click();
    await comment.getByText("The twist is the ending").waitFor({ state: "hidden" });

    // as another reader finds it after a reload
    await page.reload();
    await comment.getByText("Ending spoiler").waitFor();
    expect(await comment.getByText("The twist is the ending").isVisible()).toBe(false);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("a profile's Media section shows the pictures of the person's posts, warned ones behind their warning, opening the viewer", async () => {
    const { page, client, context, user } = await suite.person({ displayName: "Pia Painter" });
    const me = user.username;
    await postAs(client, {
      content: "the bridge",
      imageUrls: [await uploadPng(client, 900, 600)],
      imageAlts: ["A red bridge over a river"],
    });
    await postAs(client, "words only");
    await postAs(client, {
      content: "the cellar",
      contentWarning: "Spiders",
      imageUrls: [await uploadPng(client, 600, 600), await uploadPng(client, 600, 800)],
    });

    await page.goto(`/users/${me}`);
    await page.getByRole("heading", { level: 2, name: "Posts" }).waitFor();
    const sections = page.getByRole("navigation", { name: "Profile sections" });
    expect(await sections.getByRole("link", { name: "Posts" }).getAttribute("aria-current")).toBe("page");
    await sections.getByRole("link", { name: "Media" }).click();
    await page.waitForURL(`**/users/${me}/media`);
    await page.getByRole("heading", { level: 2, name: "Media" }).waitFor();
    expect(await sections.getByRole("link", { name: "Media" }).getAttribute("aria-current")).toBe("page");

    const grid = page.getByRole("list", { name: "Pictures of Pia Painter" });
    await grid.getByRole("listitem").nth(2).waitFor();
    expect(await grid.getByRole("listitem").count()).toBe(3);
    // the warned post's pictures show the warning, not the picture
    const warned = grid.getByRole("button", { name: /^Content warning: Spiders\. Open picture [12]$/ });
    expect(await warned.count()).toBe(2);
    expect(await grid.getByRole("img").count()).toBe(1);
    const bridge = grid.getByRole("img", { name: "A red bridge over a river" });
    expect(await bridge.getAttribute("srcset")).toContain(" 640w");
    expect(await page.getByText("words only").count()).toBe(0);
    await expectAccessible(page);

    // the tile is named by its picture's description
    const opener = grid.getByRole("button", { name: "A red bridge over a river" });
    await opener.click();
    const viewer = page.getByRole("dialog", { name: "Pictures of Pia Painter: 3 of 3" });
    await viewer.getByRole("img", { name: "A red bridge over a river" }).waitFor();
    await expectAccessible(page);
    await page.keyboard.press("ArrowRight");
    await page.getByRole("dialog", { name: "Pictures of Pia Painter: 1 of 3" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expectFocused(opener);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
