import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  browserAvailable,
  cookiesOf,
  newPerson,
  pageProblems,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";

// Invites and the register page, clicked through in chromium against a real server.
const run = browserAvailable();
let server: TestServer;
let admin: TestClient;
const pages: Page[] = [];
const b = run ? useBrowser() : null;
/** Screenshots of the register page and the invites screen, for a person to look at. */
const SHOTS = "/tmp/shots-signup";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

beforeAll(async () => {
  server = await startTestServer({ registration: "invite" });
  admin = (await signedInClient(server, { isAdmin: true })).client;
});
afterAll(() => server?.stop());

async function person(opts: Parameters<typeof newPerson>[2] = {}) {
  const p = await newPerson(b!.browser, server.url, opts);
  pages.push(p.page);
  return p;
}

async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function fillSignUp(page: Page, n: string) {
  await page.getByLabel("Email", { exact: true }).fill(`${n}@example.test`);
  await page.getByLabel("Username", { exact: true }).fill(n);
  await page.getByLabel("Password", { exact: true }).fill("a long enough password");
}

const accountMade = async (username: string) =>
  (await server.app.db.selectFrom("users").select("id").where("username", "=", username).execute()).length === 1;

const it = (name: string, body: () => Promise<void>) =>
  test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 120_000);

describe("web app: invites", () => {
  it("an admin makes a one-use invite; its link registers one person and refuses the next", async () => {
    const adminPage = await person();
    await adminPage.context.addCookies(cookiesOf(admin, server.url));
    await adminPage.page.goto("/admin/invites");
    await adminPage.page.getByRole("heading", { level: 2, name: "Invites" }).waitFor();
    await adminPage.page.getByText("No invites yet.").waitFor();
    await expectAccessible(adminPage.page);
    await adminPage.page.getByLabel("How many accounts it may make", { exact: true }).fill("1");
    await adminPage.page.getByRole("button", { name: "Make an invite" }).click();
    const linkField = adminPage.page.getByLabel("Link of the new invite", { exact: true });
    await linkField.waitFor();
    const link = await linkField.inputValue();
    const code = new URL(link).searchParams.get("invite")!;
    expect(new URL(link).pathname).toBe("/register");
    await adminPage.page.getByRole("heading", { level: 3, name: code }).waitFor();
    await expectAccessible(adminPage.page);
    await shoot(adminPage.page, "invites-1280x800");

    // the first person follows the link: the code is filled in, and the account is made
    const first = await person({ viewport: PHONE });
    await first.page.goto(link);
    await first.page.getByRole("heading", { level: 1, name: "Create an account" }).waitFor();
    expect(await first.page.getByLabel("Invite code", { exact: true }).inputValue()).toBe(code);
    await expectAccessible(first.page);
    await shoot(first.page, "register-invite-390x844");
    await fillSignUp(first.page, "invited_one");
    await first.page.getByRole("button", { name: "Create account" }).click();
    await first.page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    expect(await accountMade("invited_one")).toBe(true);

    // the second person with the same link is told it is used up, beside the code
    const second = await person({ viewport: DESKTOP });
    await second.page.goto(link);
    await fillSignUp(second.page, "invited_two");
    await second.page.getByRole("button", { name: "Create account" }).click();
    await second.page.getByText("This invite has been used as many times as it allows").waitFor();
    expect(await second.page.getByLabel("Invite code", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(second.page);
    await shoot(second.page, "register-invite-used-up-1280x800");
    expect(await accountMade("invited_two")).toBe(false);

    // the admin sees the use, and revokes an invite after confirming
    await adminPage.page.reload();
    const used = adminPage.page
      .getByRole("listitem")
      .filter({ has: adminPage.page.getByRole("heading", { level: 3, name: code }) });
    await used.getByText("Used 1 of 1").waitFor();
    await used.getByText("Used up").waitFor();
    await adminPage.page.getByLabel("How many accounts it may make", { exact: true }).fill("5");
    await adminPage.page.getByRole("button", { name: "Make an invite" }).click();
    const second5 = new URL(
      await adminPage.page.getByLabel("Link of the new invite", { exact: true }).inputValue(),
    ).searchParams.get("invite")!;
    await adminPage.page
      .getByRole("group", { name: `Actions for invite ${second5}` })
      .getByRole("button", { name: "Revoke" })
      .click();
    await adminPage.page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await adminPage.page
      .getByRole("status")
      .filter({ hasText: `Invite ${second5} revoked.` })
      .waitFor();
    await adminPage.page
      .getByRole("listitem")
      .filter({ has: adminPage.page.getByRole("heading", { level: 3, name: second5 }) })
      .getByText("Revoked")
      .waitFor();
    const phoneAdmin = await person({ viewport: PHONE });
    await phoneAdmin.context.addCookies(cookiesOf(admin, server.url));
    await phoneAdmin.page.goto("/admin/invites");
    await phoneAdmin.page.getByRole("heading", { level: 3, name: code }).waitFor();
    await shoot(phoneAdmin.page, "invites-390x844");
    for (const p of [adminPage, first, second, phoneAdmin]) expect(pageProblems(p.page)).toEqual([]);
  });

  it("the captcha reads at its real size in light and dark, with its question as the text alternative", async () => {
    expect((await admin.patch("/api/admin/settings", { registration: "captcha" })).status).toBe(200);
    try {
      for (const viewport of [PHONE, DESKTOP])
        for (const colorScheme of ["light", "dark"] as const) {
          const { page } = await person({ viewport, colorScheme });
          await page.goto("/auth/register");
          const picture = page.getByRole("img", { name: /code of five letters and digits/ });
          await picture.waitFor();
          expect(await picture.evaluate((img: HTMLImageElement) => [img.clientWidth, img.clientHeight])).toEqual([
            200, 70,
          ]);
          await page.getByText(/Or answer this question: Write this number in digits: [a-z -]+\./).waitFor();
          await page.getByLabel("Code", { exact: true }).waitFor();
          await page.getByText("Case does not matter.").waitFor();
          await expectAccessible(page);
          await shoot(page, `register-captcha-${colorScheme}-${viewport.width}x${viewport.height}`);
        }
      // in captcha mode an invite link skips the captcha
      const code = (await admin.post("/api/admin/invites", {})).body.data.invite.code;
      const { page } = await person({ viewport: DESKTOP });
      await page.goto(`/register?invite=${code}`);
      expect(await page.getByLabel("Invite code", { exact: true }).inputValue()).toBe(code);
      expect(await page.getByLabel("Code", { exact: true }).count()).toBe(0);
      await expectAccessible(page);
      await shoot(page, "register-invite-in-captcha-mode-1280x800");
    } finally {
      await admin.patch("/api/admin/settings", { registration: "invite" });
    }
  });
});
