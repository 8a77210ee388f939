import { afterAll, beforeAll, describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// Link previews in the web app: the composer's card before posting, its removal, and the card on a post.
const suite = browserSuite({ "links.allowPrivatePreviews": true });
const { it } = suite;

let pages: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new Response(
        `<html><head><title>fallback</title>
        <meta property="og:title" content="Gardening for beginners ${new URL(req.url).pathname}">
        <meta property="og:description" content="Seeds, soil and patience.">
        <meta property="og:site_name" content="Green Pages">
        <meta property="og:image" content="/leaf.png"></head></html>`,
        { headers: { "content-type": "text/html" } },
      ),
  });
});
afterAll(() => pages.stop(true));

const postCard = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });

describe("web app: link previews", () => {
  it("shows the link's card in the composer and on the post; a removed preview is not posted", async () => {
    const { page } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const link = `http://127.0.0.1:${pages.port}/tomatoes`;

    await page.getByLabel("What's new?").fill(`Read this: ${link}`);
    const composerCard = page.getByRole("region", { name: "Link preview" });
    await composerCard.getByRole("link", { name: /Gardening for beginners \/tomatoes/ }).waitFor();
    await composerCard.getByText("Green Pages").waitFor();
    await expectAccessible(page);
    await page.getByRole("button", { name: "Post", exact: true }).click();
    const posted = postCard(page, "Read this:");
    const card = posted.getByRole("link", { name: /Gardening for beginners \/tomatoes/ });
    await card.waitFor();
    expect(await card.getAttribute("href")).toBe(link);
    // a card in the text's typeface, not the monospace of the chat's "Open this link?" address
    expect(await card.evaluate((el) => getComputedStyle(el).fontFamily)).toBe(
      await posted.evaluate((el) => getComputedStyle(el).fontFamily),
    );
    await posted.getByText("Seeds, soil and patience.").waitFor();
    // the page's image is not loaded from the other site (the app's images come from this instance only)
    expect(await posted.locator(`img[src*="leaf.png"]`).count()).toBe(0);
    expect(await composerCard.count()).toBe(0);

    const other = `http://127.0.0.1:${pages.port}/roses`;
    await page.getByLabel("What's new?").fill(`Not this one ${other}`);
    await composerCard.getByRole("link", { name: /\/roses/ }).waitFor();
    await composerCard.getByRole("button", { name: "Remove preview" }).click();
    await composerCard.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Post", exact: true }).click();
    const plain = postCard(page, "Not this one");
    await plain.waitFor();
    expect(await plain.getByRole("link", { name: /Gardening for beginners/ }).count()).toBe(0);
    // after a reload too: the server made none for it
    await page.reload();
    await postCard(page, "Read this:")
      .getByRole("link", { name: /Gardening for beginners \/tomatoes/ })
      .waitFor();
    expect(
      await postCard(page, "Not this one")
        .getByRole("link", { name: /Gardening/ })
        .count(),
    ).toBe(0);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
  });

  it("the chat composer shows the card and sends without it once removed; members see the card", async () => {
    const ann = await suite.person({ username: "AnnLinks" });
    const bob = await suite.person({ username: "BobLinks" });
    await ann.page.goto(`/dashboard/messages?user=${bob.user.username}`);
    await ann.page.getByRole("heading", { level: 2, name: "BobLinks" }).waitFor();
    const input = ann.page.getByLabel("Message", { exact: true });
    const composerCard = ann.page.getByRole("region", { name: "Link preview" });
    const message = (page: Page, text: string) =>
      page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: text }) });

    await input.fill(`Without a card ${`http://127.0.0.1:${pages.port}/basil`}`);
    await composerCard.getByRole("link", { name: /\/basil/ }).waitFor();
    await composerCard.getByRole("button", { name: "Remove preview" }).click();
    await composerCard.waitFor({ state: "detached" });
    await ann.page.getByRole("button", { name: "Send" }).click();
    await message(ann.page, "Without a card").waitFor();

    await input.fill(`With a card ${`http://127.0.0.1:${pages.port}/mint`}`);
    await composerCard.getByRole("link", { name: /\/mint/ }).waitFor();
    await expectAccessible(ann.page);
    await ann.page.getByRole("button", { name: "Send" }).click();
    await message(ann.page, "With a card")
      .getByRole("link", { name: /Gardening for beginners \/mint/ })
      .waitFor();

    await bob.page.goto("/dashboard/messages");
    await bob.page.getByRole("link", { name: /AnnLinks/ }).click();
    await message(bob.page, "With a card")
      .getByRole("link", { name: /Gardening for beginners \/mint/ })
      .waitFor();
    expect(
      await message(bob.page, "Without a card")
        .getByRole("link", { name: /Gardening/ })
        .count(),
    ).toBe(0);
    await expectAccessible(bob.page);
  });
});
