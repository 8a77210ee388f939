import { describe, expect } from "bun:test";
import { pageProblems, expectAccessible } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { browserSuite } from "../testing/browser-suite";

// Search in the web app: people, posts and hashtags, each leading where it should.
const suite = browserSuite();
const it = suite.it;

describe("web app: search", () => {
  it("finds people, posts and hashtags, pages one kind, and links to profiles, posts and tags", async () => {
    const author = await quickPerson(suite.server, { username: "quokka_keeper", displayName: "Quokka Keeper" });
    const post = (await author.client.post("/api/social/posts", { content: "Quokkas smile all day #quokkalife" })).body
      .data.post;
    for (let i = 0; i < 22; i++)
      await quickPerson(suite.server, { username: `quokka_${i}`, displayName: `Quokka number ${i}` });

    const me = await suite.person();
    const { page } = me;
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
    await page.getByRole("heading", { level: 1, name: "Search" }).waitFor();
    await page.getByText("Type a name, a word or a #hashtag above.").waitFor();
    await expectAccessible(page);

    await page.getByLabel("Search for").fill("quokka");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const people = page.getByRole("region", { name: "People" });
    await people.getByRole("link", { name: "Quokka number 0" }).waitFor();
    await page.getByRole("region", { name: "Hashtags" }).getByRole("link", { name: "#quokkalife" }).waitFor();
    await page.getByRole("region", { name: "Hashtags" }).getByText("1 post", { exact: true }).waitFor();
    await page.getByRole("region", { name: "Posts" }).getByText("Quokkas smile all day").waitFor();
    expect(new URL(page.url()).search).toBe("?q=quokka");
    await expectAccessible(page);

    // all the people, a page at a time
    await people.getByRole("button", { name: "More people" }).click();
    await page.getByRole("button", { name: "People", pressed: true }).waitFor();
    expect(new URL(page.url()).search).toBe("?q=quokka&type=users");
    const found = page.getByRole("region", { name: "Found people" }).getByRole("listitem");
    await page.getByRole("region", { name: "Found people" }).getByRole("link", { name: "Quokka number 0" }).waitFor();
    await page.keyboard.press("End");
    await page.getByRole("link", { name: "Quokka Keeper" }).waitFor();
    await page.keyboard.press("End");
    await page.waitForFunction(() => document.querySelectorAll(".result-person").length === 23);
    expect(await found.count()).toBe(23);

    await page.getByRole("link", { name: "Quokka Keeper" }).click();
    await page.waitForURL("**/users/quokka_keeper");

    await page.goto("/search?q=smile&type=posts");
    await page.getByText("Quokkas smile all day").waitFor();
    expect(await page.getByRole("link", { name: "#quokkalife" }).count()).toBeGreaterThan(0);
    await page.goto("/search?q=quokkal&type=hashtags");
    await page.getByRole("link", { name: "#quokkalife" }).click();
    await page.waitForURL("**/tags/quokkalife");
    await page.getByText("Quokkas smile all day").waitFor();
    expect(post.id).toBeTruthy();

    await page.goto("/search?q=nothing-like-this-anywhere");
    await page.getByText("Nothing found for “nothing-like-this-anywhere”.").waitFor();
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
