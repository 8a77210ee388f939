import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { newPerson, pageProblems, signInThroughForm, expectAccessible, expectTitle } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { TestClient } from "../testing/client";
import { makeUser } from "../testing/fixtures";

// Administrators and the instance's identity, clicked through in chromium against a real server.
const suite = browserSuite();
const { it } = suite;
/** Pages at two sizes, each checked by axe: several times the suite's default on a loaded machine. */
const SLOW = 240_000;
/** Screenshots of the pages with the identity, phone and desktop, for a person to look at. */
const SHOTS = process.env.SHOTS_DIR ?? "/tmp/shots-admins";
const RULES = ["Be kind to each other", "No spam, no advertising", "Report what breaks the rules"];
const SIZES = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1280, height: 800 }],
] as const;

async function visitor(viewport: { width: number; height: number } = { width: 1280, height: 800 }) {
  const p = await newPerson(suite.browser, suite.server.url, { viewport });
  suite.watch(p.page);
  return p;
}

/** Sets the identity through the admin API, as an administrator would in the settings screen. */
async function setIdentity(values: Record<string, unknown>) {
  const admin = await makeUser(suite.server.app, { isAdmin: true });
  const client = new TestClient(suite.server.url);
  await client.login(admin.email!, admin.password);
  const res = await client.patch("/api/admin/settings", values);
  expect(res.status).toBe(200);
}

describe("web app: the instance's identity", () => {
  it(
    "the sign-in page shows the name and description; /about shows rules and contact; titles carry the name",
    async () => {
      await setIdentity({
        "instance.name": "Harbour Town",
        "instance.description":
          "A small network for the people of the harbour: boats, weather and the Saturday market.",
        "instance.rules": RULES,
        "instance.contact": "mods@harbour.example",
      });
      mkdirSync(SHOTS, { recursive: true });
      for (const [label, viewport] of SIZES) {
        const { page, context } = await visitor(viewport);
        await page.goto("/");
        await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
        await page.getByRole("heading", { level: 2, name: "Welcome to Harbour Town" }).waitFor();
        await page.getByText("boats, weather and the Saturday market").waitFor();
        await expect(page.getByRole("link", { name: "Harbour Town" }).first().isVisible()).resolves.toBe(true);
        await expectTitle(page, "Sign in · Harbour Town");
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `${label}-sign-in.png`), fullPage: true });

        await page.getByRole("link", { name: "About this instance and its rules" }).click();
        await page.getByRole("heading", { level: 1, name: "About Harbour Town" }).waitFor();
        const rules = page.getByRole("region", { name: "Rules" }).getByRole("listitem");
        await expect(rules.allTextContents()).resolves.toEqual(RULES);
        const contact = page.getByRole("link", { name: "mods@harbour.example" });
        await expect(contact.getAttribute("href")).resolves.toBe("mailto:mods@harbour.example");
        await expectTitle(page, "About Harbour Town · Harbour Town");
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `${label}-about.png`), fullPage: true });
        expect(pageProblems(page)).toEqual([]);
        await context.close();
      }
    },
    SLOW,
  );

  it(
    "registering shows the rules and needs them accepted",
    async () => {
      await setIdentity({ "instance.rules": RULES, "instance.name": "Harbour Town" });
      const { page, context } = await visitor({ width: 390, height: 844 });
      await page.goto("/auth/register");
      await page.getByRole("heading", { level: 1, name: "Create an account" }).waitFor();
      const rules = page.getByRole("group", { name: "The rules of Harbour Town" });
      await expect(rules.getByRole("listitem").allTextContents()).resolves.toEqual(RULES);
      await page.getByLabel("Email", { exact: true }).fill("newcomer@example.test");
      await page.getByLabel("Username", { exact: true }).fill("newcomer");
      await page.getByLabel("Password", { exact: true }).fill("newcomer password");
      const accept = page.getByRole("checkbox", { name: "I have read and accept the rules" });
      await expect(accept.evaluate((el: HTMLInputElement) => el.required)).resolves.toBe(true);
      await expectAccessible(page);
      await page.screenshot({ path: join(SHOTS, "phone-register.png"), fullPage: true });
      // the browser keeps the form back until the box is ticked
      await page.getByRole("button", { name: "Create account" }).click();
      await expect(accept.evaluate((el: HTMLInputElement) => el.validity.valueMissing)).resolves.toBe(true);
      await accept.check();
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
      await expectTitle(page, "Feed · Harbour Town");
      await context.close();
    },
    SLOW,
  );
});

describe("web app: administrators", () => {
  it(
    "an admin grants admin to a person, who then has the admin area; the grant is in the audit log",
    async () => {
      const admin = await makeUser(suite.server.app, { isAdmin: true });
      const helper = await makeUser(suite.server.app, { username: "harbour_helper" });
      const { page, context } = await visitor();
      await signInThroughForm(page, admin.email!, admin.password);
      await page.goto("/admin/accounts");
      await page.getByLabel("Search accounts").fill("harbour_helper");
      await page.getByRole("button", { name: "Search" }).click();
      const row = page
        .getByRole("listitem")
        .filter({ has: page.getByRole("heading", { level: 3, name: "@harbour_helper" }) });
      await row.getByRole("button", { name: "Grant admin" }).click();
      const dialog = page.getByRole("dialog", { name: "Make @harbour_helper an administrator" });
      await expectAccessible(page);
      await dialog.getByRole("button", { name: "Grant admin" }).click();
      await page.getByRole("status").filter({ hasText: "@harbour_helper is now an administrator." }).waitFor();
      await row.getByText("Admin", { exact: true }).waitFor();
      await expect(row.getByRole("button", { name: "Revoke admin" }).isVisible()).resolves.toBe(true);
      await expectAccessible(page);

      // the new administrator finds the admin area in the header
      const other = await visitor();
      await signInThroughForm(other.page, helper.email!, helper.password);
      await other.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
      await other.page.getByRole("heading", { level: 1, name: "Administration" }).waitFor();
      await other.context.close();

      await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Audit log" }).click();
      await page.getByText("account.grant-admin").first().waitFor();
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    "an admin edits the identity in the settings screen; the header and title follow at once",
    async () => {
      const admin = await makeUser(suite.server.app, { isAdmin: true });
      const { page, context } = await visitor();
      await signInThroughForm(page, admin.email!, admin.password);
      await page.goto("/admin/settings");
      const identity = page.getByRole("group", { name: "Identity" });
      await identity.getByLabel("Name", { exact: true }).fill("Riverside");
      await identity.getByLabel("Rules", { exact: true }).fill("Stay on topic\n\nBe patient with newcomers\n");
      await identity.getByLabel("Contact", { exact: true }).fill("https://riverside.example/contact");
      await expectAccessible(page);
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByRole("status").filter({ hasText: "Saved and in effect" }).waitFor();
      await page.locator("a.brand", { hasText: "Riverside" }).waitFor();
      await expectTitle(page, "Admin: Settings · Riverside");
      const shown = (await new TestClient(suite.server.url).get("/api/instance")).body.data.instance;
      expect(shown).toMatchObject({
        name: "Riverside",
        rules: ["Stay on topic", "Be patient with newcomers"],
        contact: "https://riverside.example/contact",
      });
      await context.close();
    },
    SLOW,
  );

  it(
    "a person turns off bots writing first in the privacy settings",
    async () => {
      const { page, client } = await suite.person();
      await page.goto("/settings");
      const box = page.getByRole("checkbox", { name: "Bots may write to me first" });
      await expect(box.isChecked()).resolves.toBe(true);
      await box.uncheck();
      await expectAccessible(page);
      await box.locator("xpath=ancestor::form").getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
      expect((await client.get("/api/account/settings")).body.data.settings.botsMayWriteFirst).toBe(false);
    },
    SLOW,
  );
});
