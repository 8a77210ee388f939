import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { realtimeHub } from "../realtime/hub";
import { pageProblems, signedInPage, expectAccessible } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { pngOf, uploadFor } from "../testing/media";
import { postAs } from "../testing/posts";
import { browserSuite } from "../testing/browser-suite";

// The social side of the web app, clicked through in chromium against a real server.
const suite = browserSuite();
const { it } = suite;

function person(username?: string, opts: Parameters<typeof signedInPage>[3] = {}) {
  return suite.person({ ...opts, username });
}

const postCard = (page: Page, text: string | RegExp) => page.getByRole("article").filter({ hasText: text });

describe("web app: the feed", () => {
  it("writes posts with text, an image and a poll; likes, reposts, bookmarks, votes, edits and deletes", async () => {
    const { page, context } = await person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await expectAccessible(page);

    const text = page.getByLabel("What's new?");
    await text.fill("Hello #welcome from the browser");
    await page.getByText("1,969 characters left").waitFor();
    await text.fill("x".repeat(2001));
    await page.getByText("1 characters too many").waitFor();
    expect(await page.getByRole("button", { name: "Post", exact: true }).isDisabled()).toBe(true);
    await text.fill("Hello #welcome from the browser");

    await page.getByLabel("Add images").setInputFiles({
      name: "blue.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 64, 48)),
    });
    await page.getByRole("button", { name: "Remove blue.png" }).waitFor();
    await page.getByRole("progressbar").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Post", exact: true }).click();
    const first = postCard(page, "Hello #welcome from the browser");
    await first.getByRole("img", { name: /^Image 1 of 1 in @\w+'s post, no description$/ }).waitFor();
    await first.getByRole("link", { name: "#welcome" }).waitFor();
    expect(await text.inputValue()).toBe("");
    // my own post is on screen already: the suite.server's feed:new for it is no news to me
    await Bun.sleep(500);
    expect(await page.getByRole("button", { name: /new posts?: show/ }).count()).toBe(0);

    // a poll
    await page.getByRole("button", { name: "Poll", exact: true }).click();
    await page.getByLabel("Question (optional)").fill("Tea or coffee?");
    await page.getByLabel("Choice 1").fill("Tea");
    await page.getByLabel("Choice 2").fill("Coffee");
    await page.getByRole("button", { name: "Post", exact: true }).click();
    const poll = postCard(page, "Tea or coffee?");
    await poll.getByRole("radio", { name: "Coffee" }).check();
    await poll.getByRole("button", { name: "Vote" }).click();
    await poll.getByText("Coffee (your vote)").waitFor();
    await expectAccessible(page);

    // like, repost, save: each a toggle button that says its state
    await first.getByRole("button", { name: /^Like/ }).click();
    await first.getByRole("button", { name: "Liked 1", pressed: true }).waitFor();
    await first.getByRole("button", { name: "Bookmark" }).click();
    await first.getByRole("button", { name: "Bookmarked", pressed: true }).waitFor();
    await first.getByRole("button", { name: /^Repost/ }).click();
    await first.getByRole("button", { name: "Reposted 1", pressed: true }).waitFor();

    // edit, then delete through the confirmation dialog
    // edit the text and swap the image for another one
    const [before] = await suite.server.app.db
      .selectFrom("posts")
      .select("images")
      .where("content", "like", "Hello #welcome%")
      .execute();
    await first.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Edit your post").fill("Hello again #welcome");
    // while editing, the card's text is in the text box: find the card by it
    const editingCard = page.getByRole("article").filter({ has: page.getByLabel("Edit your post") });
    await editingCard.getByRole("button", { name: "Remove image 1" }).click();
    await editingCard.getByLabel("Add images").setInputFiles({
      name: "green.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 40, 40)),
    });
    await editingCard.getByRole("button", { name: "Remove green.png" }).waitFor();
    await editingCard.getByRole("progressbar").waitFor({ state: "detached" });
    await expectAccessible(page);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const edited = postCard(page, "Hello again #welcome");
    await edited.getByText("edited").waitFor();
    await edited.getByRole("img", { name: /^Image 1 of 1 in @\w+'s post, no description$/ }).waitFor();
    const [after] = await suite.server.app.db
      .selectFrom("posts")
      .select("images")
      .where("content", "=", "Hello again #welcome")
      .execute();
    const urls = (images: string) =>
      (JSON.parse(images) as Array<{ url: string; width: number }>).map((i) => [i.url, i.width]);
    expect(urls(after!.images)).toHaveLength(1);
    expect(urls(after!.images)[0]![1]).toBe(40);
    expect(urls(after!.images)[0]![0]).not.toBe(urls(before!.images)[0]![0]);
    await postCard(page, "Tea or coffee?").getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this post?" });
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Delete the post" }).click();
    await postCard(page, "Tea or coffee?").waitFor({ state: "detached" });

    // what the suite.server stored
    const stored = (await suite.server.app.db.selectFrom("posts").select(["content"]).execute()).map((p) => p.content);
    expect(stored).toContain("Hello again #welcome");
    expect(stored).not.toContain("Tea or coffee?");
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("comments, replies in a thread, likes a comment, and follows a hashtag link", async () => {
    const author = await quickPerson(suite.server);
    const post = await postAs(author.client, `Thread starter #threads${Date.now() % 1000}`);
    const { page, context } = await person();
    await page.goto(`/posts/${post.id}`);
    await page.getByRole("heading", { level: 1, name: `Post by @${author.user.username}` }).waitFor();
    await page.getByLabel("Write a comment").fill("First comment");
    await page.getByLabel("Attach to the comment").setInputFiles({
      name: "sky.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 80, 60)),
    });
    await page.getByRole("button", { name: "Remove sky.png" }).waitFor();
    await page.getByRole("progressbar").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    const comment = page.getByRole("article", { name: /^Comment by/ }).filter({ hasText: "First comment" });
    await comment.waitFor();
    await comment.getByRole("img", { name: /^Image in a comment by/ }).waitFor();
    expect(await page.getByRole("button", { name: "Remove sky.png" }).count()).toBe(0);
    await comment.getByRole("button", { name: /^Like/ }).click();
    await comment.getByRole("button", { name: "Liked 1", pressed: true }).waitFor();
    await comment.getByRole("button", { name: "Reply" }).click();
    // a reply may be only a picture
    await page.getByLabel("Attach to the reply").setInputFiles({
      name: "dot.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 16, 16)),
    });
    await page.getByRole("progressbar").waitFor({ state: "detached" });
    await page.getByLabel(/^Reply to/).fill("A reply in the thread");
    await page.getByRole("button", { name: "Reply", exact: true }).last().click();
    await page.getByRole("list", { name: "Replies" }).getByText("A reply in the thread").waitFor();
    await expectAccessible(page);

    await page.getByRole("link", { name: post.content.split(" ")[2] }).click();
    await page.getByRole("heading", { level: 1, name: post.content.split(" ")[2] }).waitFor();
    await postCard(page, "Thread starter").waitFor();
    await expectAccessible(page);
    await context.close();
  });

  it("scrolls by cursor, announces new posts live, and shows the following feed", async () => {
    const author = await quickPerson(suite.server);
    for (let i = 0; i < 45; i++) await postAs(author.client, `Numbered post ${i}`);
    const { page, context, client } = await person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByText("Numbered post 44").waitFor();
    // the sentinel at the end loads the next page as it comes into view
    for (let i = 0; i < 10 && !(await page.getByText("Numbered post 0", { exact: true }).count()); i++) {
      await page.keyboard.press("End");
      await page.mouse.wheel(0, 20_000);
      await Bun.sleep(300);
    }
    await page.getByText("Numbered post 0", { exact: true }).waitFor();
    expect(await page.getByRole("article").filter({ hasText: "Numbered post" }).count()).toBe(45);

    // following: nobody yet, then the author after following them
    await page.getByRole("button", { name: "Following" }).click();
    await page.getByText("Nobody you follow has posted yet.").waitFor();
    expect((await client.post(`/api/social/users/${author.user.username}/follow`)).status).toBe(200);
    await page.getByRole("button", { name: "All" }).click();
    await page.getByRole("button", { name: "Following" }).click();
    await page.getByText("Numbered post 44").waitFor();

    // a new post by someone I follow is announced, and shown on request
    await postAs(author.client, "Fresh off the press");
    await page.getByRole("button", { name: "1 new post: show" }).click();
    await postCard(page, "Fresh off the press").waitFor();

    // their story appears live in the row at the top of the feed and opens the viewer
    const mediaUrl = await uploadFor(suite.server.app, author.user.id, "story");
    expect((await author.client.post("/api/social/stories", { mediaUrl })).status).toBe(200);
    const stories = page.getByRole("region", { name: "Stories" });
    await stories.getByRole("link", { name: new RegExp(author.user.username) }).click();
    await page.waitForURL(/\/stories\//);
    await context.close();
  });
});

describe("web app: the connection", () => {
  it("shows a lost connection and recovers by itself", async () => {
    const { page, context } = await person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.waitForFunction(() => !document.querySelector(".connection-banner:not([hidden])"));
    await Bun.sleep(300);
    await context.setOffline(true);
    realtimeHub(suite.server.app).shutdown();
    await page.getByRole("status").filter({ hasText: "Connection lost. Reconnecting…" }).waitFor();
    await context.setOffline(false);
    await page.getByText("Connection lost. Reconnecting…").waitFor({ state: "hidden", timeout: 20_000 });
    await context.close();
  });
  it("falls back to Server-Sent Events where WebSockets cannot connect, and still gets live posts", async () => {
    const { page, context, client } = await person();
    const author = await quickPerson(suite.server);
    expect((await client.post(`/api/social/users/${author.user.username}/follow`)).status).toBe(200);
    // as behind a proxy that refuses upgrades: every WebSocket handshake gets a plain HTTP error
    await page.addInitScript(() => {
      const Real = WebSocket;
      window.WebSocket = class extends Real {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(String(url).replace("/api/realtime/ws", "/api/realtime/no-websockets-here"), protocols);
        }
      };
    });
    const sse = page.waitForRequest((req) => req.url().includes("/api/realtime/events"), { timeout: 20_000 });
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await sse;
    await page.waitForFunction(() => !document.querySelector(".connection-banner:not([hidden])"));
    await postAs(author.client, "Delivered over SSE");
    await page.getByRole("button", { name: "1 new post: show" }).click();
    await postCard(page, "Delivered over SSE").waitFor();
    await context.close();
  });
});
