import { describe, expect } from "bun:test";
import { pageProblems, expectAccessible } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { browserSuite } from "../testing/browser-suite";
import { waitFor } from "../testing/wait";

// Notifications in the web app: the live badge (cleared by opening the list), the list, marking read, paging.
const suite = browserSuite();
const it = suite.it;
/** The header link's accessible name with a badge of N unread since the list was opened ("Notifications, 3 unread"). */
const unread = (n: number) => new RegExp(`^Notifications\\W+${n} unread$`);

describe("web app: notifications", () => {
  it("shows new notifications live with a badge that clears once the list is opened, in every window, and marks them read", async () => {
    const me = await suite.person();
    const { page } = me;
    const post = (await me.client.post("/api/social/posts", { content: "a post worth liking" })).body.data.post;
    const nav = (p = page) => p.getByRole("navigation", { name: "Main" });
    const noBadge = (p = page) => nav(p).getByRole("link", { name: "Notifications", exact: true });

    await page.goto("/notifications");
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    await page.getByText("No notifications yet.").waitFor();
    await expectAccessible(page);
    const navLink = nav().getByRole("link", { name: /^Notifications/ });
    expect(await navLink.textContent()).toBe("Notifications");

    // someone follows me while I look at the list: it arrives without a reload, and is seen
    const fan = await quickPerson(suite.server, { displayName: "Fan Person" });
    await fan.client.post(`/api/social/users/${me.user.username}/follow`);
    const list = page.getByRole("list", { name: "Notifications" });
    await list.getByRole("link", { name: "followed you" }).waitFor();
    await waitFor(
      async () => (await me.client.get("/api/social/notifications")).body.data.unseenCount === 0,
      10_000,
      "the follow to be seen",
    );
    await noBadge().waitFor();

    // elsewhere in the app the badge counts what comes later, live, in this window and another one
    // (the server's clock is the test's: it moves on when told)
    suite.server.clock.advance(1000);
    await nav().getByRole("link", { name: "Feed" }).click();
    const other = await me.context.newPage();
    await other.goto("/");
    await fan.client.post(`/api/social/posts/${post.id}/like`);
    await nav()
      .getByRole("link", { name: unread(1) })
      .waitFor();
    await nav(other)
      .getByRole("link", { name: unread(1) })
      .waitFor();

    // opening the list clears it, in the other window too; what is unread stays marked until read
    await nav()
      .getByRole("link", { name: unread(1) })
      .click();
    await list.getByRole("link", { name: "liked your post" }).waitFor();
    await noBadge().waitFor();
    await noBadge(other).waitFor();
    expect(await list.getByRole("listitem").count()).toBe(2);
    expect(await page.getByRole("button", { name: /^Mark read/ }).count()).toBe(2);
    expect(await list.getByRole("link", { name: "liked your post" }).getAttribute("href")).toBe(`/posts/${post.id}`);
    expect((await me.client.get("/api/social/notifications")).body.data).toMatchObject({
      unreadCount: 2,
      unseenCount: 0,
    });
    await expectAccessible(page);

    await page.getByRole("button", { name: "Mark read: Fan Person followed you" }).click();
    await page.getByRole("button", { name: "Mark read: Fan Person followed you" }).waitFor({ state: "detached" });
    expect(await page.getByRole("button", { name: /^Mark read/ }).count()).toBe(1);

    // the Unread view leaves out what was read
    await page.getByRole("button", { name: "Unread", exact: true }).click();
    await list.getByRole("link", { name: "followed you" }).waitFor({ state: "detached" });
    await list.getByRole("link", { name: "liked your post" }).waitFor();
    expect(await list.getByRole("link", { name: "followed you" }).count()).toBe(0);

    await page.getByRole("button", { name: "Mark all as read" }).click();
    await page.getByRole("button", { name: "Mark all as read" }).and(page.locator(":disabled")).waitFor();
    expect(await page.getByRole("button", { name: /^Mark read/ }).count()).toBe(0);
    expect((await me.client.get("/api/social/notifications?unread=true")).body.data.unreadCount).toBe(0);

    // the badge is right after a reload too (read from the server, not kept in the page)
    await other.close();
    await page.goto("/");
    suite.server.clock.advance(1000);
    await fan.client.post(`/api/social/posts/${post.id}/repost`);
    await nav()
      .getByRole("link", { name: unread(1) })
      .waitFor();
    await page.reload();
    await nav()
      .getByRole("link", { name: unread(1) })
      .waitFor();
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  }, 120_000);

  it("pages through many notifications by cursor, on a phone in dark mode", async () => {
    const me = await suite.person({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    // likes of different posts are groups of their own: 23 of them
    for (let i = 0; i < 23; i++) {
      const post = await me.client.post("/api/social/posts", { content: `post ${i}` });
      const fan = await quickPerson(suite.server, { displayName: `Follower ${i}` });
      await fan.client.post(`/api/social/posts/${post.body.data.post.id}/like`);
    }
    const { page } = me;
    // the feed, opened before they came, reads the count anew
    await page.reload();
    await page.getByRole("link", { name: unread(23) }).waitFor();
    await page.goto("/notifications");
    const items = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
    await page.getByRole("link", { name: "Follower 22", exact: true }).waitFor();
    // the first page holds 20; scrolling to the end loads the rest (or the button does, for keyboards)
    await page.keyboard.press("End");
    await page.getByRole("link", { name: "Follower 0", exact: true }).waitFor();
    expect(await items.count()).toBe(23);
    expect(await page.getByRole("link", { name: /^Follower \d+$/ }).count()).toBe(23);
    expect(await page.getByRole("link", { name: "liked your post" }).count()).toBe(23);
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Notifications", exact: true })
      .waitFor();
    await expectAccessible(page);
    await me.context.close();
  });

  it("groups likes of one post and follows: the latest people, how many more, one unread item each", async () => {
    const me = await suite.person();
    const { page } = me;
    const post = (await me.client.post("/api/social/posts", { content: "a post many like" })).body.data.post;
    const fans = [];
    for (const name of ["Ann Fan", "Bob Fan", "Cy Fan", "Di Fan"])
      fans.push(await quickPerson(suite.server, { displayName: name }));
    for (const fan of fans) await fan.client.post(`/api/social/posts/${post.id}/like`);
    await fans[0]!.client.post(`/api/social/users/${me.user.username}/follow`);
    await fans[1]!.client.post(`/api/social/users/${me.user.username}/follow`);

    await page.reload();
    await page.getByRole("link", { name: unread(2) }).waitFor();
    await page.goto("/notifications");
    const list = page.getByRole("list", { name: "Notifications" });
    await list.getByRole("link", { name: "liked your post" }).waitFor();
    expect(await list.getByRole("listitem").count()).toBe(2);
    const [follows, likes] = [list.getByRole("listitem").nth(0), list.getByRole("listitem").nth(1)];
    expect((await follows.locator("p").textContent())?.replace(/\s+/g, " ")).toBe(
      "Unread: Bob Fan and Ann Fan followed you",
    );
    expect((await likes.locator("p").textContent())?.replace(/\s+/g, " ")).toBe(
      "Unread: Di Fan and 3 others liked your post",
    );
    await expectAccessible(page);

    // one more like while I look: the group grows live and stays one item, now first
    const late = await quickPerson(suite.server, { displayName: "Eve Fan" });
    await late.client.post(`/api/social/posts/${post.id}/like`);
    await list.getByText("Eve Fan").waitFor();
    expect(await list.getByRole("listitem").count()).toBe(2);
    expect((await list.getByRole("listitem").nth(0).locator("p").textContent())?.replace(/\s+/g, " ")).toBe(
      "Unread: Eve Fan and 4 others liked your post",
    );

    await page.getByRole("button", { name: "Mark read: Eve Fan and 4 others liked your post" }).click();
    await page.getByRole("button", { name: /^Mark read: Eve Fan/ }).waitFor({ state: "detached" });
    expect(await page.getByRole("button", { name: /^Mark read/ }).count()).toBe(1);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
