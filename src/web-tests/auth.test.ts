import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { capturingLog, lastMail, totpAt } from "../testing/auth";
import {
  browserAvailable,
  newPerson,
  pageProblems,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";
import { TestClient } from "../testing/client";
import { makeUser } from "../testing/fixtures";
import { numberInWords } from "../domain/auth/captcha";
import { textFor } from "../domain/users/language";
import { startTestServer, type TestServer } from "../testing/server";

const english = await textFor("en");

// Sign-in side of the web app, clicked through in chromium against a real server.
const run = browserAvailable();
const capture = capturingLog();
let server: TestServer;
const pages: Page[] = [];
const b = run ? useBrowser() : null;

beforeAll(async () => {
  server = await startTestServer({ registration: "captcha" }, { log: capture.log });
});
afterAll(() => server?.stop());

async function person(opts: Parameters<typeof newPerson>[2] = {}) {
  const p = await newPerson(b!.browser, server.url, opts);
  pages.push(p.page);
  return p;
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const it = (name: string, body: () => Promise<void>) =>
  test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 30_000);

describe("web app: signing in", () => {
  it("signs in with e-mail and password, shows the feed, and signs out", async () => {
    const user = await makeUser(server.app);
    const { page, context } = await person();
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await expectAccessible(page);

    await signIn(page, user.email!, "not the password");
    await page
      .getByRole("alert")
      .filter({ hasText: /password/i })
      .waitFor();

    await signIn(page, user.email!, user.password);
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Feed" }).waitFor();
    await expectAccessible(page);

    // a reload keeps the session (cookies), and sign-out ends it
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect((await context.cookies()).some((c) => c.name === "auth_access_token")).toBe(false);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("asks for the authenticator code, and takes a recovery code instead", async () => {
    const user = await makeUser(server.app);
    const api = new TestClient(server.url);
    await api.login(user.email!, user.password);
    const setup = await api.post("/api/auth/2fa/totp/setup");
    const enabled = await api.post("/api/auth/2fa/totp/enable", {
      code: await totpAt(setup.body.data.secret, server.clock),
    });
    const recovery: string = enabled.body.data.recoveryCodes[0];

    const { page, context } = await person();
    await page.goto("/");
    await signIn(page, user.email!, user.password);
    await page.getByText("Enter the six-digit code from your authenticator app.").waitFor();
    await expectAccessible(page);
    await page.getByLabel("Code", { exact: true }).fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByText("That code is not right").waitFor();
    // the code of the next 30-second step: the current one was spent enabling two-factor
    await page.getByLabel("Code", { exact: true }).fill(await totpAt(setup.body.data.secret, server.clock, 1));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();

    await signIn(page, user.email!, user.password);
    await page.getByLabel("Code", { exact: true }).fill(recovery);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await context.close();
  });

  it("takes the code e-mailed to the person", async () => {
    const user = await makeUser(server.app);
    const api = new TestClient(server.url);
    await api.login(user.email!, user.password);
    expect((await api.post("/api/auth/2fa/method", { method: "email", password: user.password })).status).toBe(200);

    const { page, context } = await person();
    await page.goto("/");
    await signIn(page, user.email!, user.password);
    await page.getByText("We e-mailed you a six-digit code").waitFor();
    await page.getByLabel("Code", { exact: true }).fill(lastMail(capture, user.email!, "login-code").code);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await context.close();
  });
});

describe("web app: accounts", () => {
  // three sign-up attempts, each with a password hash, and a sign-in: more than the usual budget on a busy machine
  const slowIt = (name: string, body: () => Promise<void>) =>
    test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 90_000);

  slowIt(
    "registers with the captcha's text question, then confirms the e-mail address from the mailed link",
    async () => {
      const { page, context } = await person({ viewport: { width: 390, height: 844 } });
      await page.goto("/");
      await page.getByRole("link", { name: "Create an account" }).first().click();
      await page.getByRole("heading", { level: 1, name: "Create an account" }).waitFor();
      await page.getByRole("img", { name: /code of five letters and digits/ }).waitFor();
      await expectAccessible(page);

      const email = `new${Date.now()}@example.test`;
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByLabel("Username", { exact: true }).fill(`new${Date.now() % 100000}`);
      await page.getByLabel("Password", { exact: true }).fill("short");
      await page.getByLabel("Code", { exact: true }).fill("wrong");
      await page.getByRole("button", { name: "Create account" }).click();
      // the first error the server finds is shown where it belongs; a new picture replaces the used one
      await page.locator("[aria-invalid=true]").first().waitFor();
      await page.getByLabel("Password", { exact: true }).fill("a long enough password");
      await page.getByLabel("Code", { exact: true }).fill("wrong");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByText("That was not the code in the picture").waitFor();
      // answered as a person who cannot see the picture: from the question's text on the page
      const question = await page.locator(".captcha-question strong").textContent();
      const words = question!.replace(/^Write this number in digits: /, "").replace(/\.$/, "");
      const number = [...Array(1000).keys()].find((i) => i > 0 && numberInWords(i, english) === words);
      await page.getByLabel("Code", { exact: true }).fill(String(number));
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
      await expectAccessible(page);

      const link: string = lastMail(capture, email, "email-verification").link;
      expect(new URL(link).pathname).toBe("/auth/verify-email");
      await page.goto(link);
      await page.getByText("Your e-mail address is confirmed.").waitFor();
      await expectAccessible(page);
      await context.close();
    },
  );

  it("explains a closed instance instead of showing a form", async () => {
    const closed = await startTestServer({ registration: "closed" });
    try {
      const p = await newPerson(b!.browser, closed.url);
      pages.push(p.page);
      await p.page.goto("/auth/register");
      await p.page.getByText("does not take new sign-ups").waitFor();
      expect(await p.page.getByLabel("Email", { exact: true }).count()).toBe(0);
      await p.context.close();
    } finally {
      await closed.stop();
    }
  });

  it("resets a forgotten password from the mailed link", async () => {
    const user = await makeUser(server.app);
    const { page, context } = await person();
    await page.goto("/");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { level: 1, name: "Reset your password" }).waitFor();
    await page.getByLabel("Email", { exact: true }).fill(user.email!);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByText("a link to set a new password is on its way").waitFor();
    await expectAccessible(page);

    const link: string = lastMail(capture, user.email!, "password-reset").link;
    await page.goto(link);
    await page.getByRole("heading", { level: 1, name: "Set a new password" }).waitFor();
    await page.getByLabel("New password", { exact: true }).fill("a brand new password");
    await page.getByLabel("Repeat the new password", { exact: true }).fill("a different one");
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByText("The two passwords differ.").waitFor();
    await page.getByLabel("Repeat the new password", { exact: true }).fill("a brand new password");
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByText("Your password is changed").waitFor();
    await expectAccessible(page);
    await page.getByRole("link", { name: "Sign in with the new password" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await signIn(page, user.email!, "a brand new password");
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();

    // the link works once
    await page.goto(link);
    await page.getByRole("heading", { level: 1, name: "Set a new password" }).waitFor();
    await page.getByLabel("New password", { exact: true }).fill("yet another password");
    await page.getByLabel("Repeat the new password", { exact: true }).fill("yet another password");
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByRole("alert").waitFor();
    await context.close();
  });
});

describe("web app: QR sign-in", () => {
  it("a signed-out browser shows a QR code and is signed in once the signed-in browser approves", async () => {
    const user = await makeUser(server.app);
    const phone = await person({ viewport: { width: 390, height: 844 } });
    const laptop = await person();

    await laptop.page.goto("/");
    await laptop.page.getByRole("button", { name: "Show a QR code" }).click();
    await laptop.page.getByRole("img", { name: "QR code to sign in on this browser" }).waitFor();
    await expectAccessible(laptop.page);
    const link = await laptop.page.getByLabel("Sign-in link", { exact: true }).inputValue();
    expect(new URL(link).pathname).toBe("/auth/link");

    // the phone opens the link signed out: it signs in first, then sees the request
    await phone.page.goto(link);
    await signIn(phone.page, user.email!, user.password);
    await phone.page.getByRole("heading", { level: 1, name: "Sign in on another device" }).waitFor();
    await phone.page.getByText(`asks to sign in as @${user.username}`).waitFor();
    await phone.page.getByText("Chrome on Linux").waitFor();
    await expectAccessible(phone.page);
    await phone.page.getByRole("button", { name: "Approve" }).click();
    await phone.page.getByText("Approved").waitFor();

    await laptop.page.getByRole("heading", { level: 1, name: "Feed" }).waitFor({ timeout: 15_000 });
    await laptop.page.getByText(`@${user.username}`).filter({ visible: true }).first().waitFor();
    await phone.context.close();
    await laptop.context.close();
  });

  it("a refused request tells the asking browser, which can show a new code", async () => {
    const user = await makeUser(server.app);
    const laptop = await person();
    await laptop.page.goto("/");
    await laptop.page.getByRole("button", { name: "Show a QR code" }).click();
    const link = await laptop.page.getByLabel("Sign-in link", { exact: true }).inputValue();

    const phone = await person();
    await phone.page.goto("/");
    await signIn(phone.page, user.email!, user.password);
    await phone.page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await phone.page.goto(link);
    await phone.page.getByRole("button", { name: "Refuse" }).click();
    await phone.page.getByText("Refused: the other device was not signed in.").waitFor();

    await laptop.page.getByText("The sign-in was refused on the other device.").waitFor({ timeout: 15_000 });
    await laptop.page.getByRole("button", { name: "Show a new code" }).click();
    await laptop.page.getByText("Waiting for approval on your other device…").waitFor();
    expect(await laptop.page.getByLabel("Sign-in link", { exact: true }).inputValue()).not.toBe(link);
    await phone.context.close();
    await laptop.context.close();
  });
});
