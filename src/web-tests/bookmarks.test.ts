import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { pageProblems, expectAccessible, expectFocused } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { browserSuite } from "../testing/browser-suite";

// The Bookmarks page: reached from the navigation, the latest bookmark first, paged, a bookmark
// removed there (with Undo), an empty state.
const suite = browserSuite();
const { it } = suite;

const postCard = (page: Page, text: string | RegExp) => page.getByRole("article").filter({ hasText: text });

describe("web app: bookmarks", () => {
  it("lists what I bookmarked, newest bookmark first, pages on, and removes one with Undo", async () => {
    const author = await quickPerson(suite.server, { displayName: "Post Author" });
    const ids: string[] = [];
    for (let i = 0; i < 22; i++)
      ids.push(
        (await author.client.post("/api/social/posts", { content: `Saved post number ${i}` })).body.data.post.id,
      );
    const me = await suite.person();
    const { page } = me;
    // bookmarked in order, so number 21 is the latest bookmark
    for (const id of ids) await me.client.post(`/api/social/posts/${id}/bookmark`);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Bookmarks" }).click();
    await page.getByRole("heading", { level: 1, name: "Bookmarks" }).waitFor();
    await postCard(page, "Saved post number 21").waitFor();
    expect(await page.getByRole("article").first().textContent()).toContain("Saved post number 21");
    await expectAccessible(page);
    // the first page, then the rest as the end comes into view
    await page.keyboard.press("End");
    await postCard(page, "Saved post number 0").waitFor();
    expect(await page.getByRole("article").count()).toBe(22);

    // a post bookmarked in the feed lists first
    const fresh = (await author.client.post("/api/social/posts", { content: "Bookmarked from the feed" })).body.data
      .post;
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Feed" }).click();
    await postCard(page, "Bookmarked from the feed").getByRole("button", { name: "Bookmark", exact: true }).click();
    await postCard(page, "Bookmarked from the feed").getByRole("button", { name: "Bookmarked" }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Bookmarks" }).click();
    await postCard(page, "Bookmarked from the feed").waitFor();
    expect(await page.getByRole("article").first().textContent()).toContain("Bookmarked from the feed");
    expect(fresh.id).toBeTruthy();

    // removing one here takes it off the list, with Undo (focused, so the keyboard is not lost)
    await postCard(page, "Saved post number 20").getByRole("button", { name: "Bookmarked" }).click();
    await postCard(page, "Saved post number 20").waitFor({ state: "detached" });
    const status = page.getByRole("status").filter({ hasText: "from your bookmarks" });
    await status.getByText(`Removed @${author.user.username}'s post from your bookmarks.`).waitFor();
    await expectFocused(status.getByRole("button", { name: "Undo" }));
    await expectAccessible(page);
    let saved = (await me.client.get("/api/social/bookmarks?limit=50")).body.data.posts;
    expect(saved.map((p: any) => p.content)).not.toContain("Saved post number 20");
    await page.keyboard.press("Enter");
    await postCard(page, "Saved post number 20").waitFor();
    expect(await page.getByRole("article").nth(2).textContent()).toContain("Saved post number 20");
    saved = (await me.client.get("/api/social/bookmarks?limit=50")).body.data.posts;
    expect(saved[0].content).toBe("Saved post number 20");
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  }, 120_000);

  it("says how to bookmark when nothing is bookmarked, on a phone in dark mode (the link under More)", async () => {
    const me = await suite.person({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    const { page } = me;
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("button", { name: "More" }).click();
    await nav.getByRole("link", { name: "Bookmarks" }).click();
    await page.getByText("No bookmarks yet. Press the bookmark button under a post to keep it here.").waitFor();
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
