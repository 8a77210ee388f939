import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { pageProblems, expectAccessible, expectFocused } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson } from "../testing/fixtures";
import { postAs } from "../testing/posts";

// @ and # suggestions in the post, comment and message composers; the people picker of a new
// group and of adding members; drafts kept across reloads. Driven by labels and roles.
const suite = browserSuite({ "limits.messagesPerMinute": 1_000_000 });
const { it } = suite;

/** A few letters no other test's names start with, so each test's suggestions are its own. */
const fresh = () =>
  `q${Array.from({ length: 3 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(Math.random() * 26)]).join("")}`;

/** People named PREFIX + each of NAMES (display name: the name capitalised). */
async function people(prefix: string, ...names: string[]) {
  const made = [];
  for (const name of names)
    made.push(
      await quickPerson(suite.server, {
        username: `${prefix}${name}`,
        displayName: name.charAt(0).toUpperCase() + name.slice(1),
      }),
    );
  return made;
}

const suggestions = (page: Page, name: "People" | "Hashtags") => page.getByRole("listbox", { name });

/** Search requests the page makes from now on. */
function countSearches(page: Page) {
  const seen: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/social/search") seen.push(new URL(r.url()).searchParams.get("q")!);
  });
  return seen;
}

describe("web app: @ and # suggestions", () => {
  it("in a post: arrows and Enter, a click, Escape; the sent post links the mention and the tag", async () => {
    const p = fresh();
    const [alice, alina] = await people(p, "alice", "alina");
    const other = await quickPerson(suite.server);
    await postAs(other.client, `Travel notes #${p}japan`);
    const me = await suite.person();
    const { page } = me;
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const searches = countSearches(page);

    const text = page.getByRole("combobox", { name: "What's new?" });
    await text.pressSequentially(`Hello @${p}ali`, { delay: 30 });
    const list = suggestions(page, "People");
    await list.getByRole("option", { name: `Alice @${alice!.user.username}` }).waitFor();
    await list.getByRole("option", { name: `Alina @${alina!.user.username}` }).waitFor();
    expect(await text.getAttribute("aria-expanded")).toBe("true");
    // the first is active; Down moves to the second, and the input points at it
    const second = list.getByRole("option", { name: new RegExp(alina!.user.username) });
    await text.press("ArrowDown");
    expect(await second.getAttribute("aria-selected")).toBe("true");
    expect(await text.getAttribute("aria-activedescendant")).toBe(await second.getAttribute("id"));
    await expectAccessible(page);
    await text.press("Enter");
    await list.waitFor({ state: "detached" });
    expect(await text.inputValue()).toBe(`Hello @${alina!.user.username} `);
    expect(await text.getAttribute("aria-expanded")).toBe("false");
    // a word typed at an ordinary pace costs a request or two, not one per letter
    expect(searches.length).toBeLessThanOrEqual(3);

    // Escape closes the list and leaves the text as typed
    await text.pressSequentially(`@${p}al`, { delay: 30 });
    await list.waitFor();
    await text.press("Escape");
    await list.waitFor({ state: "detached" });
    expect(await text.inputValue()).toBe(`Hello @${alina!.user.username} @${p}al`);
    await text.fill(`Hello @${alina!.user.username} `);

    // a hashtag, picked with the mouse
    await text.pressSequentially(`and #${p}ja`, { delay: 30 });
    const tags = suggestions(page, "Hashtags");
    await tags.getByRole("option", { name: `#${p}japan 1 post` }).click();
    expect(await text.inputValue()).toBe(`Hello @${alina!.user.username} and #${p}japan `);
    await expectFocused(text);

    await page.getByRole("button", { name: "Post", exact: true }).click();
    const card = page.getByRole("article").filter({ hasText: `Hello @${alina!.user.username}` });
    await card.getByRole("link", { name: `@${alina!.user.username}` }).waitFor();
    await card.getByRole("link", { name: `#${p}japan` }).waitFor();
    expect(await text.inputValue()).toBe("");
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });

  it("in a comment (Tab picks) and in a message (a click picks, Enter picks before it sends)", async () => {
    const p = fresh();
    const [carol] = await people(p, "carol");
    const author = await quickPerson(suite.server);
    const post = await postAs(author.client, "A post to comment on");
    const me = await suite.person();
    const { page } = me;

    await page.goto(`/posts/${post.id}`);
    const comment = page.getByRole("combobox", { name: "Write a comment" });
    await comment.pressSequentially(`Thanks @${p}car`, { delay: 30 });
    await suggestions(page, "People")
      .getByRole("option", { name: new RegExp(carol!.user.username) })
      .waitFor();
    await comment.press("Tab");
    expect(await comment.inputValue()).toBe(`Thanks @${carol!.user.username} `);
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    const sent = page.getByRole("article", { name: /^Comment by/ }).filter({ hasText: "Thanks" });
    await sent.getByRole("link", { name: `@${carol!.user.username}` }).waitFor();

    // a message: the list opens above the input; a click picks
    await page.goto(`/dashboard/messages?user=${author.user.username}`);
    const input = page.getByRole("combobox", { name: "Message", exact: true });
    await input.pressSequentially(`ask @${p}ca`, { delay: 30 });
    const list = suggestions(page, "People");
    await list.getByRole("option", { name: new RegExp(carol!.user.username) }).click();
    expect(await input.inputValue()).toBe(`ask @${carol!.user.username} `);
    // with the list open Enter picks and sends nothing; the next Enter sends
    await input.pressSequentially(`and @${p}c`, { delay: 30 });
    await list.waitFor();
    const box = (await list.boundingBox())!;
    const inputBox = (await input.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(inputBox.y + 1);
    await expectAccessible(page);
    await input.press("Enter");
    expect(await input.inputValue()).toBe(`ask @${carol!.user.username} and @${carol!.user.username} `);
    await input.press("Enter");
    const message = page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: "ask @" }) });
    await message
      .getByRole("link", { name: `@${carol!.user.username}` })
      .first()
      .waitFor();
    expect(await input.inputValue()).toBe("");
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});

describe("web app: the people picker", () => {
  it("makes a group with two people chosen by name, then adds a third", async () => {
    const p = fresh();
    const [dora, dave, erin] = await people(p, "dora", "dave", "erin");
    const me = await suite.person();
    const { page } = me;
    await page.goto("/dashboard/messages");
    await page.getByRole("button", { name: "New group" }).click();
    const dialog = page.getByRole("dialog", { name: "New group" });
    await dialog.getByLabel("Group title").fill("Picked people");
    const members = dialog.getByRole("combobox", { name: "Members" });
    await members.pressSequentially(`${p}d`, { delay: 30 });
    const list = dialog.getByRole("listbox", { name: "People" });
    await list.getByRole("option", { name: `Dave @${dave!.user.username}` }).waitFor();
    await list.getByRole("option", { name: `Dora @${dora!.user.username}` }).waitFor();
    // Dave comes first (alphabetical by username): Enter picks him
    await members.press("Enter");
    const chosen = dialog.getByRole("list", { name: "Chosen people" });
    await chosen.getByRole("button", { name: `Remove @${dave!.user.username}` }).waitFor();
    // a chosen person is offered no more; Dora by the mouse
    await members.pressSequentially(`${p}d`, { delay: 30 });
    await list.getByRole("option", { name: new RegExp(dora!.user.username) }).waitFor();
    expect(await list.getByRole("option").count()).toBe(1);
    await list.getByRole("option", { name: new RegExp(dora!.user.username) }).click();
    await chosen.getByRole("button", { name: `Remove @${dora!.user.username}` }).waitFor();
    // Escape closes the list, not the dialog
    await members.pressSequentially(`${p}e`, { delay: 30 });
    await list.waitFor();
    await members.press("Escape");
    await list.waitFor({ state: "detached" });
    await dialog.waitFor();
    // a chip goes with its button; Backspace in the empty field takes the last one back
    await members.fill("");
    await members.press("Backspace");
    await chosen.getByRole("button", { name: `Remove @${dora!.user.username}` }).waitFor({ state: "detached" });
    // a username typed whole, ended by a comma
    await members.pressSequentially(`@${dora!.user.username},`, { delay: 10 });
    await chosen.getByRole("button", { name: `Remove @${dora!.user.username}` }).waitFor();
    await members.pressSequentially(`${p}e`, { delay: 30 });
    await list.getByRole("option", { name: new RegExp(erin!.user.username) }).waitFor();
    await members.press("Escape");
    await members.fill("");
    await chosen.getByRole("button", { name: `Remove @${dave!.user.username}` }).click();
    expect(await chosen.getByRole("listitem").count()).toBe(1);
    await expectFocused(members);
    await members.pressSequentially(`${p}dav`, { delay: 30 });
    await members.press("Enter");
    expect(await chosen.getByRole("listitem").count()).toBe(2);
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Create group" }).click();
    await page.getByRole("heading", { level: 2, name: "Picked people" }).waitFor();

    await page.getByRole("button", { name: "Group info" }).click();
    const info = page.getByRole("complementary", { name: "Group info" });
    const member = (username: string) => info.getByRole("button", { name: `Remove ${username}`, exact: true });
    await member(dora!.user.username).waitFor();
    await member(dave!.user.username).waitFor();
    // adding: the members already in are not offered
    const adding = info.getByRole("combobox", { name: "Add members" });
    await adding.pressSequentially(`${p}`, { delay: 30 });
    const offered = info.getByRole("listbox", { name: "People" });
    await offered.getByRole("option", { name: new RegExp(erin!.user.username) }).waitFor();
    expect(await offered.getByRole("option").count()).toBe(1);
    await adding.press("Enter");
    await info.getByRole("button", { name: "Add member", exact: true }).click();
    await member(erin!.user.username).waitFor();
    expect(await info.getByRole("list", { name: "Chosen people" }).count()).toBe(0);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});

describe("web app: one person's field", () => {
  it("the gift's To field offers people; a pick fills in the username", async () => {
    const p = fresh();
    const [gina] = await people(p, "gina");
    const me = await suite.person();
    const { page } = me;
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Stars" }).click();
    const to = page.getByRole("form", { name: "Give stars" }).getByRole("combobox", { name: "To (username)" });
    await to.pressSequentially(`${p}gi`, { delay: 30 });
    await page
      .getByRole("listbox", { name: "People" })
      .getByRole("option", { name: `Gina @${gina!.user.username}` })
      .click();
    expect(await to.inputValue()).toBe(gina!.user.username);
    await page.getByRole("listbox", { name: "People" }).waitFor({ state: "detached" });
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});

describe("web app: drafts", () => {
  it("the post composer's text and warning, and a chat's message, survive a reload and go once sent", async () => {
    const friend = await quickPerson(suite.server, { displayName: "Friend" });
    const other = await quickPerson(suite.server, { displayName: "Other" });
    const me = await suite.person();
    const { page } = me;
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByLabel("What's new?").fill("Half a thought");
    await page.getByLabel("Content warning").fill("Unfinished");
    await page.reload();
    expect(await page.getByLabel("What's new?").inputValue()).toBe("Half a thought");
    expect(await page.getByLabel("Content warning").inputValue()).toBe("Unfinished");
    await page.getByRole("button", { name: "Post", exact: true }).click();
    await page.getByRole("article").filter({ hasText: "Unfinished" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    expect(await page.getByLabel("What's new?").inputValue()).toBe("");
    expect(await page.getByLabel("Content warning").inputValue()).toBe("");

    // a chat's draft is its own: not in another chat, back after a reload, gone when sent
    const otherChat = (await me.client.post(`/api/social/users/${other.user.username}/message`, {})).body.data
      .conversationId;
    await page.goto(`/dashboard/messages?user=${friend.user.username}`);
    await page.getByRole("heading", { level: 2, name: "Friend" }).waitFor();
    const friendChat = page.url();
    const input = page.getByLabel("Message", { exact: true });
    await input.fill("see you at");
    await page.goto(`/dashboard/messages/${otherChat}`);
    await page.getByRole("heading", { level: 2, name: "Other" }).waitFor();
    expect(await input.inputValue()).toBe("");
    await page.goto(friendChat);
    await page.getByRole("heading", { level: 2, name: "Friend" }).waitFor();
    expect(await input.inputValue()).toBe("see you at");
    await page.reload();
    await page.getByRole("heading", { level: 2, name: "Friend" }).waitFor();
    expect(await input.inputValue()).toBe("see you at");
    await input.press("End");
    await input.pressSequentially(" noon");
    await input.press("Enter");
    await page.locator(".msg-text", { hasText: "see you at noon" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 2, name: "Friend" }).waitFor();
    await page.locator(".msg-text", { hasText: "see you at noon" }).waitFor();
    expect(await input.inputValue()).toBe("");

    // signing out takes the account's drafts off the device
    const kept = () => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("drafts.")));
    await input.fill("left unsent");
    expect(await kept()).toHaveLength(1);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Email", { exact: true }).waitFor();
    expect(await kept()).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
