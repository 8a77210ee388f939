import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { openChat } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";

// Reporting and the moderation queue, clicked through in chromium against a real server.
const suite = browserSuite();
const { it } = suite;
/** Screenshots of the report dialog and the queue at a phone's and a desktop's size, for a person to look at. */
const SHOTS = process.env.REPORT_SHOTS ?? "/tmp/shots-reports";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Screenshots of PAGE as it is now at both sizes (the viewport is put back to the desktop's). */
async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  for (const [size, viewport] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png` });
  }
}

const messageItem = (page: Page, text: string) =>
  page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: text }) });

const queueItem = (page: Page, label: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3, name: label }) });

describe("web app: reports", () => {
  it("a person reports a post and a message; an admin resolves them in the Reports section and the author is blocked from posting", async () => {
    const { server } = suite;
    const author = await quickPerson(server, { username: `spammer_${Math.random().toString(36).slice(2, 6)}` });
    const reporter = await suite.person({ username: `reader_${Math.random().toString(36).slice(2, 6)}` });
    suite.watch(reporter.page);
    await reporter.client.post(`/api/social/users/${author.user.username}/follow`);
    await author.client.post("/api/social/posts", { content: "Cheap pills, no prescription: pills.example" });
    const cid = await openChat(author.client, reporter.user.username);
    await author.client.post(`/api/social/messages/${cid}`, { content: "Send me your bank password" });

    // the post, from the feed
    const page = reporter.page;
    await page.goto("/");
    const card = page.getByRole("article").filter({ hasText: "Cheap pills, no prescription" });
    await card.getByRole("button", { name: "Report" }).click();
    const dialog = page.getByRole("dialog", { name: `Report @${author.user.username}'s post` });
    await dialog.getByRole("button", { name: "Send report" }).click();
    await dialog.getByText("Choose a reason.").waitFor();
    await dialog.getByRole("radio", { name: /^Spam/ }).check();
    await dialog.getByLabel("Anything the administrators should know (optional)").fill("Sells pills every hour");
    await expectAccessible(page);
    await shoot(page, "report-dialog");
    await dialog.getByRole("button", { name: "Send report" }).click();
    const sent = page.getByRole("dialog", { name: "Report sent" });
    await sent.getByRole("status").waitFor();
    await expectAccessible(page);
    await shoot(page, "report-sent");
    await sent.getByRole("button", { name: "Close" }).click();

    // the message, from its chat's message menu
    await page.goto(`/dashboard/messages/${cid}`);
    await messageItem(page, "Send me your bank password").getByRole("button", { name: "Message actions" }).click();
    await page.getByRole("group", { name: "Message actions" }).getByRole("button", { name: "Report" }).click();
    const messageDialog = page.getByRole("dialog", { name: `Report @${author.user.username}'s message` });
    await messageDialog.getByRole("radio", { name: /^Abuse or harassment/ }).check();
    await messageDialog.getByRole("button", { name: "Send report" }).click();
    await page.getByRole("dialog", { name: "Report sent" }).getByRole("button", { name: "Close" }).click();
    const mine = (await reporter.client.get("/api/social/reports")).body.data.reports as any[];
    expect(mine.map((r) => [r.target.type, r.reason, r.status])).toEqual([
      ["message", "abuse", "open"],
      ["post", "spam", "open"],
    ]);

    // the admin: a badge with the open reports, the queue with the content in context
    const admin = await suite.person({ username: `admin_${Math.random().toString(36).slice(2, 6)}` });
    await server.app.db.updateTable("users").set({ is_admin: 1 }).where("id", "=", admin.user.id).execute();
    suite.watch(admin.page);
    const a = admin.page;
    await a.goto("/");
    await a
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: /^Admin\W+2 open reports$/ })
      .click();
    await a
      .getByRole("navigation", { name: "Administration" })
      .getByRole("link", { name: /^Reports\W+2 open reports$/ })
      .click();
    await a.getByRole("heading", { level: 2, name: "Reports" }).waitFor();
    const post = queueItem(a, `Post by @${author.user.username}`);
    const message = queueItem(a, `Message by @${author.user.username}`);
    await post.getByText("Sells pills every hour").waitFor();
    await message.getByText("Send me your bank password").waitFor();
    await expectAccessible(a);
    await shoot(a, "queue");

    await post.getByRole("button", { name: "Block posting…" }).click();
    const block = a.getByRole("dialog", { name: `Block posting by @${author.user.username}` });
    await block.getByLabel("Minutes").fill("60");
    await block.getByLabel("Note for the audit log (optional)").fill("pill spam");
    await expectAccessible(a);
    await shoot(a, "queue-block-posting");
    await block.getByRole("button", { name: "Block posting" }).click();
    await a.getByRole("status").filter({ hasText: "posting blocked (1 report resolved)" }).waitFor();

    await message.getByRole("button", { name: "Remove message" }).click();
    await a
      .getByRole("dialog", { name: `Remove Message by @${author.user.username}` })
      .getByRole("button", { name: "Remove" })
      .click();
    await a.getByRole("status").filter({ hasText: "content removed" }).waitFor();
    await a.getByText("No open reports. Nothing waits for you.").waitFor();
    await a
      .getByRole("navigation", { name: "Administration" })
      .getByRole("link", { name: "Reports", exact: true })
      .waitFor();
    await expectAccessible(a);

    // the author is blocked from posting; the message is gone from the chat; the reporter is told
    const refused = await author.client.post("/api/social/posts", { content: "more pills" });
    expect([refused.status, refused.body.error.code]).toEqual([403, "POSTING_TEMPORARILY_BLOCKED"]);
    await a.getByRole("button", { name: "Resolved" }).click();
    await queueItem(a, `Post by @${author.user.username}`)
      .getByText(/posting blocked/)
      .waitFor();

    await page.goto("/notifications");
    await page.getByText("The administrators").first().waitFor();
    await expect(page.getByRole("link", { name: "reviewed your report" }).count()).resolves.toBe(2);
    await page.goto("/settings#reports");
    await page.getByText("The account may not post for a while").waitFor();
    await page.getByText("The content was removed").waitFor();
    expect(pageProblems(page)).toEqual([]);
    expect(pageProblems(a)).toEqual([]);
  }, 120_000);

  it("in a bot's chat a person blocks and reports the bot in one step", async () => {
    const { server } = suite;
    const owner = await quickPerson(server);
    const name = `pushy_${Math.random().toString(36).slice(2, 6)}_bot`;
    expect((await owner.client.post("/api/bots", { username: name, name: "Pushy" })).status).toBe(200);
    const person = await suite.person();
    suite.watch(person.page);
    const cid = await openChat(person.client, name);
    const page = person.page;
    await page.goto(`/dashboard/messages/${cid}`);
    await page.getByRole("heading", { level: 2, name: "Pushy" }).waitFor();
    await page.getByRole("button", { name: "Report" }).click();
    const dialog = page.getByRole("dialog", { name: `Report the bot @${name}` });
    await expect(dialog.getByRole("checkbox", { name: new RegExp(`Also block @${name}`) }).isChecked()).resolves.toBe(
      true,
    );
    await dialog.getByRole("radio", { name: /^Spam/ }).check();
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Block and report" }).click();
    await page.getByRole("dialog", { name: "Report sent" }).getByText(`@${name} is blocked`).waitFor();
    const profile = (await person.client.get(`/api/social/users/${name}`)).body.data.profile;
    expect(profile.isBlocked).toBe(true);
    const reports = (await person.client.get("/api/social/reports")).body.data.reports as any[];
    expect(reports.map((r) => [r.target.type, r.target.id])).toEqual([["bot", name]]);
    expect(pageProblems(page)).toEqual([]);
  }, 90_000);
});
