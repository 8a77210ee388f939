import { describe, expect } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { requireMembershipByCuid, sendMessage } from "../domain/chats";
import { pageProblems, expectAccessible, expectFocused } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// Searching messages in the web app: on the Search screen (each result names its chat and
// sender, marks the words and opens the chat at the message) and inside one chat (older and
// newer results, each jumped to in the history, loaded around it when it was not).
const suite = browserSuite();
const { it } = suite;

function person(name: string) {
  return suite.person({
    username: `${name.toLowerCase()}_${Math.random().toString(36).slice(2, 6)}`,
    displayName: name,
  });
}

const messageItem = (page: Page, text: string | RegExp) =>
  page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: text }) });

/** Whether ROW is inside the history's visible area (not only in the page). */
const inHistoryView = (row: Locator) =>
  row.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const frame = el.closest(".history")!.getBoundingClientRect();
    return box.top >= frame.top - 1 && box.bottom <= frame.bottom + 1;
  });

/** A chat between A and B whose history has FILLERS messages around the ones in TEXTS (index: text). */
async function seedChat(
  a: { client: any; user: { id: number } },
  b: { user: { id: number; username: string } },
  fillers: number,
  texts: Record<number, string>,
) {
  const cid = (await a.client.post(`/api/social/users/${b.user.username}/message`, {})).body.data.conversationId;
  const { app } = suite.server;
  const conversationId = (await requireMembershipByCuid(app.db, cid, a.user.id)).conversation.id;
  for (let i = 0; i < fillers; i++)
    await sendMessage(app, {
      conversationId,
      senderId: i % 2 ? a.user.id : b.user.id,
      content: texts[i] ?? `filler line ${i}`,
    });
  return cid as string;
}

describe("web app: message search", () => {
  it("Search finds my messages: chat, sender, the words marked; a result opens the chat at it", async () => {
    const ann = await person("Ann");
    const me = await person("Reader");
    // the message sits far back: the chat's newest page does not hold it
    const cid = await seedChat(ann, me, 90, {
      3: "The lighthouse keeper waves at dawn",
      6: "The harbour is calm tonight",
    });
    const { page } = me;
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
    await page.getByLabel("Search for").fill("lighthouse");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const found = page.getByRole("region", { name: "Messages" });
    const result = found.getByRole("link", { name: /The lighthouse keeper waves at dawn/ });
    await result.waitFor();
    // the private chat is named after Ann: her own message needs no second name, mine does
    expect((await result.textContent())?.replace(/\s+/g, " ")).toBe("Ann: The lighthouse keeper waves at dawn");
    expect(await result.locator("mark").allTextContents()).toEqual(["lighthouse"]);
    await page.getByLabel("Search for").fill("harbour");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const mine = found.getByRole("link", { name: /The harbour is calm tonight/ });
    expect((await mine.textContent())?.replace(/\s+/g, " ")).toBe("Ann · Reader: The harbour is calm tonight");
    await page.getByLabel("Search for").fill("lighthouse");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await result.waitFor();
    await expectAccessible(page);

    // the Messages kind alone
    await page.getByRole("button", { name: "Messages", exact: true }).click();
    await page.getByRole("button", { name: "Messages", pressed: true }).waitFor();
    expect(new URL(page.url()).search).toBe("?q=lighthouse&type=messages");
    const typed = page.getByRole("region", { name: "Found messages" });
    await typed.getByRole("link", { name: /lighthouse keeper/ }).click();

    await page.waitForURL(`**/dashboard/messages/${cid}?message=*`);
    const row = messageItem(page, "The lighthouse keeper waves at dawn");
    await row.waitFor();
    expect(await row.getAttribute("aria-current")).toBe("true");
    expect(await row.getAttribute("aria-label")).toMatch(/^Search result: /);
    expect(await inHistoryView(row)).toBe(true);
    // what was said around it is there, and scrolling down reaches the newest again
    await messageItem(page, /^filler line 4$/).waitFor();
    expect(await messageItem(page, /^filler line 89$/).count()).toBe(0);
    await expectAccessible(page);

    // a search over its time budget says so
    await page.route("**/api/social/search?**", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        headers: { "retry-after": "1" },
        body: JSON.stringify({
          success: false,
          error: { code: "SEARCH_TIMEOUT", message: "The search took too long; try more or longer words" },
        }),
      }),
    );
    // the chat's lazy chunks loaded first: a navigation would abort an import still under way,
    // an error of the page left behind, not of the one tested
    await page.waitForLoadState("networkidle");
    await page.goto("/search?q=the&type=messages");
    await page.getByRole("alert").filter({ hasText: "The search took too long; try more or longer words" }).waitFor();
    await page.getByRole("button", { name: "Try again" }).waitFor();
    expect(pageProblems(page).filter((p) => !p.includes("503"))).toEqual([]);
    await ann.context.close();
    await me.context.close();
  }, 120_000);

  it("searching inside a chat goes through the results, jumping to an old message that was not loaded", async () => {
    const bob = await person("Bob");
    const me = await person("Chatter");
    const cid = await seedChat(bob, me, 120, {
      2: "Meet at the old harbour, pier seven",
      60: "Harbour again? fine",
      118: "The harbour is closed today",
    });
    const { page } = me;
    await page.goto(`/dashboard/messages/${cid}`);
    await messageItem(page, "The harbour is closed today").waitFor();
    expect(await messageItem(page, "Meet at the old harbour").count()).toBe(0);

    await page.getByRole("button", { name: "Search in this chat" }).click();
    const field = page.getByLabel("Search messages in this chat");
    // the field takes the focus once it is drawn, a moment after the click
    await page.waitForFunction(() => document.activeElement?.id === "chat-search-input");
    await field.fill("harb");
    await field.press("Enter");
    const status = page.locator(".chat-search-status");
    await page.getByRole("status").filter({ hasText: "Result 1 of 3" }).waitFor();
    const newest = messageItem(page, "The harbour is closed today");
    expect(await newest.getAttribute("aria-current")).toBe("true");
    await expectAccessible(page);

    await page.getByRole("button", { name: "Older result" }).click();
    await page.getByRole("status").filter({ hasText: "Result 2 of 3" }).waitFor();
    const middle = messageItem(page, "Harbour again? fine");
    await middle.and(page.locator("[aria-current=true]")).waitFor();
    expect(await inHistoryView(middle)).toBe(true);

    // the oldest was never loaded: the history around it is, and it is shown highlighted
    await page.getByRole("button", { name: "Older result" }).click();
    await page.getByRole("status").filter({ hasText: "Result 3 of 3" }).waitFor();
    const oldest = messageItem(page, "Meet at the old harbour, pier seven");
    await oldest.and(page.locator("[aria-current=true]")).waitFor();
    expect(await inHistoryView(oldest)).toBe(true);
    expect(await page.locator("[aria-current=true]").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Older result" }).isDisabled()).toBe(true);
    expect(await page.locator(".chat-search-current mark").allTextContents()).toEqual(["harb"]);

    // and back toward the newest
    await page.getByRole("button", { name: "Newer result" }).click();
    await page.getByRole("status").filter({ hasText: "Result 2 of 3" }).waitFor();
    await middle.and(page.locator("[aria-current=true]")).waitFor();

    await field.fill("nothing like this");
    await field.press("Enter");
    await page.getByRole("status").filter({ hasText: "Nothing found for “nothing like this” in this chat." }).waitFor();
    expect(await status.textContent()).toContain("Nothing found");
    await page.getByRole("button", { name: "Close the search" }).click();
    expect(await page.getByLabel("Search messages in this chat").count()).toBe(0);
    expect(await page.locator("[aria-current=true]").count()).toBe(0);
    // focus goes back to the button that opened it
    await expectFocused(page.getByRole("button", { name: "Search in this chat" }));

    // a link to a message that is gone opens the chat at its newest, saying so
    await page.goto(`/dashboard/messages/${cid}?message=999999`);
    await page
      .getByRole("alert")
      .filter({ hasText: /not found/i })
      .waitFor();
    await messageItem(page, "The harbour is closed today").waitFor();
    expect(pageProblems(page)).toEqual([]);
    await bob.context.close();
    await me.context.close();
  }, 120_000);
});
