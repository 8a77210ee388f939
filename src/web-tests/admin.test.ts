import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import {
  browserAvailable,
  newPerson,
  pageProblems,
  signInThroughForm,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";
import { TestClient } from "../testing/client";
import { makeUser, quickPerson } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";

// The admin area of the web app, clicked through in chromium against a real server.
const run = browserAvailable();
let server: TestServer;
const pages: Page[] = [];
const b = run ? useBrowser() : null;
/** Screenshots of the admin area at a desktop and a phone size, for a person to look at. */
const SHOTS = resolve(import.meta.dir, "../../.tmp/admin-screens");

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

async function person(viewport?: { width: number; height: number }) {
  const p = await newPerson(b!.browser, server.url, viewport ? { viewport } : {});
  pages.push(p.page);
  return p;
}

const adminNav = (page: Page) => page.getByRole("navigation", { name: "Administration" });
const accountRow = (page: Page, username: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3, name: `@${username}` }) });

const it = (name: string, body: () => Promise<void>) =>
  test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 120_000);

describe("web app: administration", () => {
  it("an admin disables an account, removes a post, closes registration and sees the status figures; all logged", async () => {
    const admin = await makeUser(server.app, { isAdmin: true });
    const target = await makeUser(server.app, { username: "troublemaker" });
    const author = await quickPerson(server);
    const post = (await author.client.post("/api/social/posts", { content: "Buy followers at scam.example" })).body.data
      .post;

    const { page, context } = await person();
    await signInThroughForm(page, admin.email!, admin.password);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await page.getByRole("heading", { level: 1, name: "Administration" }).waitFor();

    // status figures, as socialctl status computes them
    await page.getByRole("heading", { level: 2, name: "Instance status" }).waitFor();
    const figure = (label: string) =>
      page
        .locator("dl.figures div")
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator("dd");
    await expect(figure("Accounts").textContent()).resolves.toMatch(/^\d+$/);
    await expect(figure("Server").textContent()).resolves.toStartWith("running");
    await expect(figure("Version").textContent()).resolves.toBe("0.1.0");
    await expectAccessible(page);

    // accounts: search, then disable with a confirmation
    await adminNav(page).getByRole("link", { name: "Accounts" }).click();
    await page.getByLabel("Search accounts").fill("troublemaker");
    await page.getByRole("button", { name: "Search" }).click();
    const row = accountRow(page, "troublemaker");
    await row.getByRole("button", { name: "Disable" }).click();
    const dialog = page.getByRole("dialog", { name: "Disable @troublemaker" });
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Disable account" }).click();
    await page.getByRole("status").filter({ hasText: "@troublemaker is disabled" }).waitFor();
    await row.getByText("Disabled", { exact: true }).waitFor();
    await expect(row.getByRole("button", { name: "Enable" }).isVisible()).resolves.toBe(true);
    expect((await new TestClient(server.url).login(target.email!, target.password)).body.error.code).toBe(
      "ACCOUNT_DISABLED",
    );
    await expectAccessible(page);

    // a bad value is shown beside its field, and nothing happens
    await row.getByRole("button", { name: "Block posting" }).click();
    const block = page.getByRole("dialog", { name: "Block posting by @troublemaker" });
    await block.getByLabel("Minutes").fill("0");
    await block.getByRole("button", { name: "Block posting" }).click();
    const minutesError = block.locator(".field-error");
    await minutesError.waitFor();
    expect(await minutesError.textContent()).toBe("must be an integer from 1 to 5256000");
    await expect(block.getByLabel("Minutes").getAttribute("aria-invalid")).resolves.toBe("true");
    await expectAccessible(page);
    await block.getByRole("button", { name: "Cancel" }).click();

    // content: look a post up by its link and remove it
    await adminNav(page).getByRole("link", { name: "Content" }).click();
    await page.getByLabel("Id or link").fill(`${server.url}/posts/${post.id}`);
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByText("Buy followers at scam.example").waitFor();
    await expectAccessible(page);
    await page.getByRole("button", { name: "Remove post" }).click();
    await page.getByRole("status").filter({ hasText: "is removed" }).waitFor();
    expect((await author.client.get(`/api/social/posts/${post.id}`)).status).toBe(404);
    expect(((await author.client.get("/api/social/feed")).body.data.feed as any[]).some((p) => p.id === post.id)).toBe(
      false,
    );

    // settings: close registration; the next sign-up is refused
    await adminNav(page).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("radio", { name: /^Closed/ }).check();
    await expectAccessible(page);
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Saved and in effect: registration." }).waitFor();
    const signUp = await new TestClient(server.url).post("/api/auth/register", {
      email: "late@example.test",
      username: "late_comer",
      password: "long enough pw",
    });
    expect(signUp.body.error.code).toBe("FORBIDDEN");

    // the audit log lists every action, newest first
    await adminNav(page).getByRole("link", { name: "Audit log" }).click();
    const table = page.getByRole("table");
    await table.getByRole("cell", { name: "setting.change" }).waitFor();
    const actions = await table.locator("tbody tr td:nth-child(3)").allTextContents();
    expect(actions).toEqual(["setting.change", "post.remove", "account.disable"]);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
    await server.app.reconfigure({ registration: "open" });
  });

  it("an admin removes someone's post from its card and a comment from under its post (audited); a person without the flag gets neither Remove nor Delete there", async () => {
    const admin = await makeUser(server.app, { isAdmin: true });
    const author = await quickPerson(server);
    const post = (await author.client.post("/api/social/posts", { content: "Spam straight into the feed" })).body.data
      .post;
    const { page, context } = await person();
    await signInThroughForm(page, admin.email!, admin.password);
    const card = page.getByRole("article").filter({ hasText: "Spam straight into the feed" });
    await card.waitFor();
    await expect(card.getByRole("button", { name: "Delete" }).count()).resolves.toBe(0);
    await card.getByRole("button", { name: "Remove" }).click();
    const dialog = page.getByRole("dialog", { name: `Remove @${author.user.username}'s post?` });
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Remove the post" }).click();
    await card.waitFor({ state: "detached" });
    expect((await author.client.get(`/api/social/posts/${post.id}`)).status).toBe(404);
    const auditor = new TestClient(server.url);
    await auditor.login(admin.email!, admin.password);
    const [latest] = (await auditor.get("/api/admin/audit?limit=1")).body.data.entries;
    expect(latest).toMatchObject({ action: "post.remove", target: { id: post.id } });

    // and a comment, from under its post
    const fine = (await author.client.post("/api/social/posts", { content: "A fine post" })).body.data.post;
    await author.client.post(`/api/social/posts/${fine.id}/comments`, { content: "A rude comment" });
    await page.goto(`/posts/${fine.id}`);
    const comment = page.getByRole("article", { name: /^Comment by / }).filter({ hasText: "A rude comment" });
    await comment.getByRole("button", { name: "Remove comment" }).click();
    await comment.waitFor({ state: "detached" });
    const [removal] = (await auditor.get("/api/admin/audit?limit=1")).body.data.entries;
    expect(removal).toMatchObject({ action: "comment.remove" });
    expect((await author.client.get(`/api/social/posts/${fine.id}/comments`)).body.data.comments).toEqual([]);
    expect(pageProblems(page)).toEqual([]);
    await context.close();

    // a person without the flag sees no Remove on someone else's post
    const other = await quickPerson(server);
    await other.client.post("/api/social/posts", { content: "An ordinary post" });
    const someone = await makeUser(server.app);
    const second = await person();
    await signInThroughForm(second.page, someone.email!, someone.password);
    const plain = second.page.getByRole("article").filter({ hasText: "An ordinary post" });
    await plain.waitFor();
    await expect(plain.getByRole("button", { name: "Remove" }).count()).resolves.toBe(0);
    await expect(plain.getByRole("button", { name: "Delete" }).count()).resolves.toBe(0);
    await second.context.close();
  });

  it("an admin makes a backup, downloads it and rebuilds thumbnails, as the CLI would", async () => {
    const admin = await makeUser(server.app, { isAdmin: true });
    const { page, context } = await person();
    await signInThroughForm(page, admin.email!, admin.password);
    await page.goto("/admin");
    await adminNav(page).getByRole("link", { name: "Backups" }).click();
    await page.getByRole("heading", { level: 2, name: "Backups" }).waitFor();
    await page
      .getByText(/^No backups yet\.|^Made$/)
      .first()
      .waitFor();
    await page.getByLabel(/^Leave out thumbnails/).check();
    await page.getByRole("button", { name: "Make a backup now" }).click();
    const written = page.getByRole("status").filter({ hasText: /^Backup backup-.+ is written/ });
    await written.waitFor({ timeout: 30_000 });
    const name = /Backup (backup-\S+\.tar\.gz)/.exec((await written.textContent())!)![1]!;
    const row = page.getByRole("row").filter({ hasText: name });
    await row.getByText("backup, without thumbnails").waitFor();
    await expectAccessible(page);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      row.getByRole("link", { name: `Download ${name}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(name);
    expect(statSync((await download.path())!).size).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Rebuild thumbnails and posters" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Rebuilt \d+, already present \d+, failed 0\.$/ })
      .waitFor();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("an admin blocks a bot by moderation and lifts the block", async () => {
    const admin = await makeUser(server.app, { isAdmin: true });
    const owner = await quickPerson(server);
    const token = (await owner.client.post("/api/bots", { username: "Spammy_bot", name: "Spammy" })).body.data
      .token as string;
    const getMe = async () => (await fetch(`${server.url}/api/bot/${token}/getMe`)).status;
    expect(await getMe()).toBe(200);

    const { page, context } = await person();
    await signInThroughForm(page, admin.email!, admin.password);
    await page.goto("/admin/bots");
    const row = page
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { level: 3, name: "@Spammy_bot" }) });
    await row.getByRole("button", { name: "Block" }).click();
    await page.getByRole("dialog", { name: "Block @Spammy_bot" }).getByRole("button", { name: "Block" }).click();
    await row.getByText("Blocked by moderation").waitFor();
    expect(await getMe()).toBe(403);
    await expectAccessible(page);
    await row.getByRole("button", { name: "Unblock" }).click();
    await page.getByRole("dialog", { name: "Unblock @Spammy_bot" }).getByRole("button", { name: "Unblock" }).click();
    await row.getByRole("button", { name: "Block", exact: true }).waitFor();
    expect(await getMe()).toBe(200);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("a person without the admin flag sees no admin link and is refused", async () => {
    const someone = await makeUser(server.app);
    const { page, context } = await person();
    await signInThroughForm(page, someone.email!, someone.password);
    await expect(
      page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).count(),
    ).resolves.toBe(0);
    await page.goto("/admin/accounts");
    await page.getByRole("alert").filter({ hasText: "Only administrators" }).waitFor();
    await expect(adminNav(page).count()).resolves.toBe(0);
    await expectAccessible(page);
    const status = await page.evaluate(async () => (await fetch("/api/admin/status")).status);
    expect(status).toBe(403);
    await context.close();
  });

  for (const [label, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    it(`every section is accessible at ${viewport.width}x${viewport.height} (screenshots kept under .tmp/admin-screens)`, async () => {
      const admin = await makeUser(server.app, { isAdmin: true });
      mkdirSync(SHOTS, { recursive: true });
      const { page, context } = await person(viewport);
      await signInThroughForm(page, admin.email!, admin.password);
      for (const section of ["", "accounts", "content", "bots", "settings", "maintenance", "audit"]) {
        await page.goto(section ? `/admin/${section}` : "/admin");
        await page.getByRole("heading", { level: 1, name: "Administration" }).waitFor();
        await page.getByRole("heading", { level: 2 }).first().waitFor();
        await page.locator(".loading").waitFor({ state: "detached" });
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `${label}-${section || "status"}.png`), fullPage: true });
      }
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    });
  }
});
