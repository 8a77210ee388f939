import { describe, expect } from "bun:test";
import { readFileSync } from "node:fs";
import { totpAt } from "../testing/auth";
import { cookiesOf, newPerson, pageProblems, expectAccessible } from "../testing/browser";
import { botCall, createBotViaApi } from "../testing/botapi";
import { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import { browserSuite } from "../testing/browser-suite";

// Settings in the web app: devices, password, two-factor, who may message me, export, deletion.
const suite = browserSuite();
const it = suite.it;

/** An account with a password, signed in in a browser (and over the API as a second device). */
async function personWithPassword(opts: Parameters<typeof newPerson>[2] = {}) {
  const { user, client } = await signedInClient(suite.server);
  const p = await newPerson(suite.browser, suite.server.url, opts);
  suite.watch(p.page);
  await p.context.addCookies(cookiesOf(client, suite.server.url));
  return { ...p, user, client };
}

async function device(email: string, password: string, userAgent: string) {
  const c = new TestClient(suite.server.url);
  c.userAgent = userAgent;
  expect((await c.login(email, password)).status).toBe(200);
  return c;
}

describe("web app: settings", () => {
  it("lists devices and signs out one or all others; changes the password with errors beside the fields", async () => {
    const me = await personWithPassword();
    const firefox = await device(
      me.user.email!,
      me.user.password,
      "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
    );
    const script = await device(me.user.email!, me.user.password, "my-script/2.0");
    const { page } = me;
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    const devices = page.getByRole("list", { name: "Signed-in devices" });
    await devices.getByText("Firefox on Linux").waitFor();
    await devices.getByText("my-script/2.0").waitFor();
    await devices.getByText("This device").waitFor();
    expect(await devices.getByRole("listitem").count()).toBe(3);
    await expectAccessible(page);

    await page.getByRole("button", { name: /^Sign out Firefox on Linux/ }).click();
    await page.getByText("Firefox on Linux is signed out.").waitFor();
    expect((await firefox.get("/api/auth/me")).status).toBe(401);
    expect(await devices.getByRole("listitem").count()).toBe(2);
    await page.getByRole("button", { name: "Sign out all other devices" }).click();
    await page.getByText("1 other device is signed out.").waitFor();
    expect((await script.get("/api/auth/me")).status).toBe(401);
    await page.getByRole("button", { name: "Sign out all other devices" }).waitFor({ state: "detached" });

    const password = page.getByRole("region", { name: "Password" });
    await password.getByLabel("Current password").fill("not my password");
    await password.getByLabel("New password", { exact: true }).fill("a fresh long password");
    await password.getByLabel("Repeat the new password").fill("a fresh long password");
    await password.getByRole("button", { name: "Change the password" }).click();
    await password.getByText("Current password is incorrect.").waitFor();
    expect(await password.getByLabel("Current password").getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
    await password.getByLabel("Current password").fill(me.user.password);
    await password.getByRole("button", { name: "Change the password" }).click();
    await password.getByText("Your password is changed.").waitFor();
    expect((await new TestClient(suite.server.url).login(me.user.email!, "a fresh long password")).status).toBe(200);
    // the page's own session goes on
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });

  it("sets up an authenticator by QR code, shows the recovery codes once, switches to e-mail codes and turns two-factor off", async () => {
    const me = await personWithPassword({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    const { page } = me;
    await page.goto("/settings");
    const twoFactor = page.getByRole("region", { name: "Two-factor authentication" });
    await twoFactor.getByText("Off: your password alone signs you in.").waitFor();
    await twoFactor.getByRole("button", { name: "Set up an authenticator app" }).click();
    await twoFactor.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
    await expectAccessible(page);
    const secret = (await twoFactor.locator("code").textContent())!.trim();
    await twoFactor.getByLabel("Code from the app").fill("000000");
    await twoFactor.getByRole("button", { name: "Turn on" }).click();
    await twoFactor.getByText("That code is not right.").waitFor();
    await twoFactor.getByLabel("Code from the app").fill(await totpAt(secret, suite.server.clock));
    await twoFactor.getByRole("button", { name: "Turn on" }).click();

    const codes = twoFactor.getByRole("list", { name: "Recovery codes" });
    await codes.getByRole("listitem").first().waitFor();
    expect(await codes.getByRole("listitem").count()).toBe(10);
    const first = (await codes.getByRole("listitem").first().textContent())!;
    expect(first).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      twoFactor.getByRole("button", { name: "Download the codes" }).click(),
    ]);
    expect(readFileSync((await download.path())!, "utf8")).toContain(first);
    await expectAccessible(page);
    await twoFactor.getByRole("button", { name: "I have saved them" }).click();
    await twoFactor.getByText("On: you confirm sign-ins with a code from your authenticator app.").waitFor();
    expect(await twoFactor.getByText(first).count()).toBe(0);
    expect((await me.client.get("/api/auth/me")).body.data.account.twoFactorMethod).toBe("totp");

    const choose = twoFactor.getByRole("form", { name: "How to confirm sign-ins" });
    await choose.getByLabel(/^E-mail/).check();
    await choose.getByLabel("Password").fill("wrong password");
    await choose.getByRole("button", { name: "Use this method" }).click();
    await choose.getByText("Password is incorrect.").waitFor();
    await choose.getByLabel("Password").fill(me.user.password);
    await choose.getByRole("button", { name: "Use this method" }).click();
    await twoFactor.getByText("On: you confirm sign-ins with a code sent by e-mail.").waitFor();

    const off = twoFactor.getByRole("form", { name: "Turn off two-factor" });
    await off.getByLabel("Password").fill(me.user.password);
    await off.getByRole("button", { name: "Turn off two-factor" }).click();
    await twoFactor.getByText("Off: your password alone signs you in.").waitFor();
    expect((await me.client.get("/api/auth/me")).body.data.account.twoFactorMethod).toBe("none");
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });

  it("chooses who may message me, downloads my data, and deletes the account after a confirmation", async () => {
    const me = await personWithPassword();
    const { page } = me;
    await page.goto("/settings");
    const messages = page.getByRole("region", { name: "Messages" });
    await messages.getByLabel("Everyone").waitFor();
    expect(await messages.getByLabel("Everyone").isChecked()).toBe(true);
    await messages.getByLabel("Nobody").check();
    await messages.getByRole("button", { name: "Save" }).click();
    await messages.getByText("Saved.").waitFor();
    expect((await me.client.get("/api/account/settings")).body.data.settings.whoCanMessage).toBe("nobody");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download my data" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^${me.user.username}-export-\\d{4}-\\d{2}-\\d{2}\\.json$`),
    );
    const exported = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(exported.account.username).toBe(me.user.username);

    const botToken = await createBotViaApi(me.client, `${me.user.username.slice(0, 20)}_bot`);
    await page.getByRole("button", { name: "Delete my account…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete your account?" });
    await dialog.waitFor();
    await dialog.getByText("Your bots stop working too: they are turned off and their tokens are refused").waitFor();
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Keep my account" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Delete my account…" }).click();
    await dialog.getByLabel("Password").fill("not it");
    await dialog.getByRole("button", { name: "Delete forever" }).click();
    await dialog.getByText("Password is incorrect.").waitFor();
    await dialog.getByLabel("Password").fill(me.user.password);
    await dialog.getByRole("button", { name: "Delete forever" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect((await new TestClient(suite.server.url).login(me.user.email!, me.user.password)).status).not.toBe(200);
    expect((await botCall(suite.server.url, botToken, "getMe")).status).toBe(401);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
