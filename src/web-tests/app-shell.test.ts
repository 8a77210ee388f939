import { describe, expect } from "bun:test";
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { staticFile, webBundle } from "../http/web-app";
import { cookiesOf, newPerson, pageProblems, expectAccessible, pushDelivery, expectTitle } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { waitFor } from "../testing/wait";

// The app's shell on phones and desktops, and as an installed app: the navigation at both
// widths, the manifest and icons, the service worker (offline start, updates, pushes), and
// the first screen's JavaScript budget.
const suite = browserSuite();
/** these walk many screens and start service workers: more time than the suite's default on a busy machine */
const it = (name: string, body: () => Promise<void>, timeout = 120_000) => suite.it(name, body, timeout);
const PHONE = { width: 390, height: 844 };
const INSTALLED = { serviceWorkers: "allow" } as const;
const DESKTOP = { width: 1280, height: 800 };
/** First-screen JavaScript, gzip: the budget the product holds the web app to. */
const FIRST_SCREEN_JS_BUDGET = 60 * 1024;

/** A person with the admin flag (so the Admin link is there too), with one unread chat and one notification. */
async function adminWithUnread(opts: { viewport: { width: number; height: number }; colorScheme?: "light" | "dark" }) {
  const me = await suite.person(opts);
  await suite.server.app.db.updateTable("users").set({ is_admin: 1 }).where("id", "=", me.user.id).execute();
  const friend = await quickPerson(suite.server, { displayName: "Friendly Person" });
  await friend.client.post(`/api/social/users/${me.user.username}/follow`);
  const opened = await friend.client.post(`/api/social/users/${me.user.username}/message`, {});
  await friend.client.post(`/api/social/messages/${opened.body.data.conversationId}`, { content: "hello there" });
  await me.page.reload();
  return me;
}

const overflows = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth > window.innerWidth + 0.5);

/** The service worker controls PAGE (after a reload once it is active). */
async function controlledBy(page: Page): Promise<string> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) await page.reload();
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
  return page.evaluate(() => navigator.serviceWorker.controller!.scriptURL);
}

describe("web app: the shell on a phone", () => {
  it("has a bottom tab bar with counts, reaches every destination, and never scrolls sideways", async () => {
    const { page } = await adminWithUnread({ viewport: PHONE });
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of ["Feed", /^Messages\W+1 unread/, /^Notifications\W+1 unread$/, "Profile"])
      await nav.getByRole("link", { name }).waitFor();
    // the counts are on screen, not only read out
    expect(
      await nav
        .getByRole("link", { name: /^Messages/ })
        .locator(".unread-badge")
        .isVisible(),
    ).toBe(true);
    expect(
      await nav
        .getByRole("link", { name: /^Notifications/ })
        .locator(".unread-badge")
        .isVisible(),
    ).toBe(true);
    const bar = await nav.boundingBox();
    expect(bar!.y + bar!.height).toBeCloseTo(PHONE.height, 0);
    for (const name of ["Feed", "Messages", "Notifications", "Profile", "More"]) {
      const item = nav.getByRole(name === "More" ? "button" : "link", { name: new RegExp(`^${name}`) });
      const box = (await item.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      expect(box.y).toBeGreaterThan(PHONE.height - 100);
    }
    await expectAccessible(page);

    // the tabs
    const screens: Array<[RegExp | string, string]> = [
      [/^Messages/, "Messages"],
      [/^Notifications/, "Notifications"],
      ["Profile", ""],
      ["Feed", "Feed"],
    ];
    for (const [link, heading] of screens) {
      await nav.getByRole("link", { name: link }).click();
      if (heading) await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      else await page.waitForURL(/\/users\//);
      await page.waitForLoadState("networkidle");
      expect({ screen: String(link), overflows: await overflows(page) }).toEqual({
        screen: String(link),
        overflows: false,
      });
    }

    expect(pageProblems(page)).toEqual([]);
  }, 150_000);

  it("has the other destinations under More, and the admin area fits without scrolling sideways", async () => {
    const { page } = await adminWithUnread({ viewport: PHONE, colorScheme: "dark" });
    const nav = page.getByRole("navigation", { name: "Main" });
    // the rest is under More: a sheet that closes on Escape and on leaving
    const more = nav.getByRole("button", { name: "More" });
    const extras: Array<[string, string]> = [
      ["Stories", "Stories"],
      ["Search", "Search"],
      ["Stars", "Stars"],
      ["My bots", "My bots"],
      ["Settings", "Settings"],
      ["Admin", "Admin"],
    ];
    await more.click();
    expect(await more.getAttribute("aria-expanded")).toBe("true");
    await expectAccessible(page);
    await page.keyboard.press("Escape");
    expect(await more.getAttribute("aria-expanded")).toBe("false");
    await nav.getByRole("link", { name: "Stories" }).waitFor({ state: "hidden" });
    for (const [link, heading] of extras) {
      await more.click();
      await nav.getByRole("link", { name: new RegExp(`^${link}`) }).click();
      await page.getByRole("heading", { level: 1, name: new RegExp(`^${heading}`) }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(await more.getAttribute("aria-expanded")).toBe("false");
      expect({ screen: link, overflows: await overflows(page) }).toEqual({ screen: link, overflows: false });
    }
    // every section of the admin area fits too (its tabs wrap rather than scroll)
    const adminNav = page.getByRole("navigation", { name: /admin/i });
    const sections = await adminNav.getByRole("link").allTextContents();
    expect(sections.length).toBeGreaterThan(3);
    for (const section of sections) {
      await adminNav.getByRole("link", { name: section }).click();
      await page.waitForLoadState("networkidle");
      expect({ screen: `admin ${section}`, overflows: await overflows(page) }).toEqual({
        screen: `admin ${section}`,
        overflows: false,
      });
    }
    // and signing out is there
    await more.click();
    await nav.getByRole("button", { name: "Sign out" }).waitFor();
    expect(pageProblems(page)).toEqual([]);
  }, 150_000);
});

describe("web app: the shell on a desktop", () => {
  it("has a side navigation with every destination and the account", async () => {
    const { page } = await adminWithUnread({ viewport: DESKTOP, colorScheme: "dark" });
    const nav = page.getByRole("navigation", { name: "Main" });
    const names = [
      "Feed",
      /^Messages\W+1 unread/,
      /^Notifications\W+1 unread$/,
      "Profile",
      "Stories",
      "Search",
      "Stars",
      "My bots",
      "Settings",
      "Admin",
    ];
    for (const name of names) await nav.getByRole("link", { name }).waitFor();
    expect(await nav.getByRole("button", { name: "More" }).isVisible()).toBe(false);
    const box = (await nav.boundingBox())!;
    // a column at the left, the page beside it
    expect(box.x).toBeLessThan(40);
    expect(box.width).toBeLessThan(300);
    const main = (await page.locator("main").boundingBox())!;
    expect(main.x).toBeGreaterThanOrEqual(box.x + box.width);
    await page.getByRole("button", { name: "Sign out" }).waitFor();

    // the instance's icon, uploaded in the admin area, becomes the app's icons
    await nav.getByRole("link", { name: "Admin" }).click();
    await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Settings" }).click();
    const iconCard = page.getByRole("region", { name: "Instance icon" });
    await iconCard.getByRole("img", { name: "The instance's icon as it is now" }).waitFor();
    await expectAccessible(page);
    await iconCard.getByLabel("Upload an icon").setInputFiles({
      name: "icon.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 600, 600)),
    });
    await iconCard.getByText("The new icon is in use.").waitFor();
    expect(suite.server.app.config["instance.icon"]).toMatch(/^\/files\//);
    await iconCard.getByRole("button", { name: "Use the default icon" }).click();
    await iconCard.getByText("The default icon is back in use.").waitFor();
    expect(suite.server.app.config["instance.icon"]).toBe("");

    await nav.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    expect(await nav.getByRole("link", { name: "Settings" }).getAttribute("aria-current")).toBe("page");
    expect(await overflows(page)).toBe(false);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
  }, 120_000);
});

describe("web app: installable", () => {
  it("serves a manifest from the instance's identity with icons of the right sizes, a favicon, and a service worker that controls the page", async () => {
    const { page } = await suite.person({ viewport: PHONE, ...INSTALLED });
    const name = suite.server.app.config["instance.name"];
    await expectTitle(page, new RegExp(RegExp.escape(name)));
    const head = await page.evaluate(() => ({
      manifest: document.querySelector<HTMLLinkElement>('link[rel="manifest"]')?.href,
      icon: document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href,
      apple: document.querySelector<HTMLLinkElement>('link[rel="apple-touch-icon"]')?.href,
      themes: [...document.querySelectorAll('meta[name="theme-color"]')].map((m) => m.getAttribute("media")),
    }));
    expect(head.themes).toEqual(["(prefers-color-scheme: light)", "(prefers-color-scheme: dark)"]);
    const manifest = await page.evaluate(async (url) => (await fetch(url!)).json(), head.manifest);
    expect(manifest).toMatchObject({ name, start_url: "/", scope: "/", display: "standalone" });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
    const sizes = (manifest.icons as Array<{ src: string; sizes: string; purpose: string }>).map(
      (i) => `${i.sizes} ${i.purpose}`,
    );
    expect(sizes).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
    // each icon loads as a PNG of the size it claims
    const loaded = await page.evaluate(
      (srcs) =>
        Promise.all(
          srcs.map(
            (src) =>
              new Promise<string>((resolve, reject) => {
                const img = new Image();
                img.onload = () => resolve(`${img.naturalWidth}x${img.naturalHeight}`);
                img.onerror = () => reject(new Error(`${src} did not load`));
                img.src = src;
              }),
          ),
        ),
      [...manifest.icons.map((i: { src: string }) => i.src), head.icon!, head.apple!],
    );
    expect(loaded).toEqual(["192x192", "512x512", "512x512", "32x32", "180x180"]);
    expect(await controlledBy(page)).toBe(`${suite.server.url}/sw.js`);
    const sw = await page.request.get("/sw.js");
    expect(sw.headers()["service-worker-allowed"]).toBe("/");
    expect(sw.headers()["cache-control"]).toBe("no-cache");
    expect(pageProblems(page)).toEqual([]);
  });

  it("opens offline from what the service worker kept, and says it is offline and what it kept", async () => {
    const { page, context } = await suite.person({ viewport: PHONE, ...INSTALLED });
    await controlledBy(page);
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    // nothing private was kept: only the app's own files
    const kept = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const key of await caches.keys())
        for (const req of await (await caches.open(key)).keys()) urls.push(new URL(req.url).pathname);
      return urls;
    });
    expect(kept).toContain("/");
    expect(kept.filter((u) => u.startsWith("/api/") || u.startsWith("/files/"))).toEqual([]);

    await context.setOffline(true);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "You are offline" }).waitFor();
    await page.getByText(/This device keeps the app itself \(\d+ files\)/).waitFor();
    await expectAccessible(page);
    // and back online, the app starts as usual
    await context.setOffline(false);
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
  });

  it("tells the person when a new version is deployed, and reloads onto it when asked", async () => {
    const { page } = await suite.person({ viewport: DESKTOP, ...INSTALLED });
    await controlledBy(page);
    const versionOf = () =>
      page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith("shell-")).join(","));
    const before = await versionOf();
    expect(before).toMatch(/^shell-/);
    // a new build: one more chunk, so another list of files and another version of the worker
    const web = await webBundle();
    const added = "/chunk-newbuild0.js";
    web.assets.set(added, staticFile(new TextEncoder().encode("export const fresh = 1;\n"), "text/javascript"));
    try {
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
      const prompt = page.getByRole("status").filter({ hasText: "A new version is available." });
      await prompt.waitFor();
      await expectAccessible(page);
      // the running page keeps working until the person chooses
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
      await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
      await prompt.getByRole("button", { name: "Reload" }).click();
      await page.waitForFunction(async () => (await caches.keys()).filter((k) => k.startsWith("shell-")).length === 2);
      await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
      await prompt.waitFor({ state: "detached" });
      const after = await versionOf();
      expect(after.split(",")).toContain(before);
      const newCache = after.split(",").find((k) => k !== before)!;
      expect(
        await page.evaluate(async (key) => !!(await (await caches.open(key)).match("/chunk-newbuild0.js")), newCache),
      ).toBe(true);
    } finally {
      web.assets.delete(added);
    }
    expect(pageProblems(page)).toEqual([]);
  });

  it("shows a push as a notification, one per chat", async () => {
    const person = await suite.person({ viewport: DESKTOP, ...INSTALLED });
    await person.context.grantPermissions(["notifications"], { origin: suite.server.url });
    await controlledBy(person.page);
    const pushes = await pushDelivery(person, suite.server.url);
    const push = (payload: { kind: string; title: string; body: string; url: string }) =>
      pushes.deliver(JSON.stringify(payload));
    // one push at a time, as a server sends them: pushes delivered together race in Chromium's
    // notification store, which then lists a replaced or a lost one
    await push({ kind: "messages", title: "Ada", body: "first", url: "/dashboard/messages/c1" });
    await push({ kind: "messages", title: "Ada", body: "second", url: "/dashboard/messages/c1" });
    const list = await push({ kind: "follows", title: "Grace followed you", body: "", url: "/users/grace" });
    // the chat's two messages collapsed into its newest
    expect(list.find((n) => n.tag === "chat /dashboard/messages/c1")).toEqual({
      title: "Ada",
      body: "second",
      tag: "chat /dashboard/messages/c1",
      icon: "/icons/icon-192.png",
      url: "/dashboard/messages/c1",
    });
    // the follow's own, untagged; and nothing else (the chat's first message replaced)
    expect(list.filter((n) => n.tag !== "chat /dashboard/messages/c1")).toEqual([
      { title: "Grace followed you", body: "", tag: "", icon: "/icons/icon-192.png", url: "/users/grace" },
    ]);
    await pushes.detach();
  }, 120_000);
});

describe("web app: first screen", () => {
  it(`loads at most ${FIRST_SCREEN_JS_BUDGET / 1024} KB of JavaScript (gzip) before the feed shows`, async () => {
    const me = await quickPerson(suite.server);
    // as a first visit: nothing cached, no service worker
    const { page, context } = await newPerson(suite.browser, suite.server.url);
    await context.addCookies(cookiesOf(me.client, suite.server.url));
    const sizes = new Map<string, number>();
    page.on("response", async (res) => {
      if (res.request().resourceType() !== "script") return;
      sizes.set(new URL(res.url()).pathname, gzipSync(await res.body(), { level: 9 }).length);
    });
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await page.waitForLoadState("networkidle");
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    expect(sizes.size).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(FIRST_SCREEN_JS_BUDGET);
    await context.close();
  });
});

describe("web app: a screen whose code does not load", () => {
  /** Fails the requests for chunks PAGE has not loaded yet: each one's first (ONCE), or every one. */
  async function failNewChunks(page: Page, how: "once" | "always") {
    const loaded = new Set(
      await page.evaluate(() => performance.getEntriesByType("resource").map((entry) => new URL(entry.name).pathname)),
    );
    const failed = new Set<string>();
    const pattern = "**/chunk-*.js";
    await page.route(pattern, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (loaded.has(path) || (how === "once" && failed.has(path))) return route.continue();
      failed.add(path);
      return route.abort("connectionreset");
    });
    return { failed, stop: () => page.unroute(pattern) };
  }

  it("opens after a failed load of its code, which is tried again", async () => {
    const { page } = await suite.person({ viewport: DESKTOP });
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const { failed } = await failNewChunks(page, "once");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).click();
    await page.getByRole("heading", { level: 1, name: "Search" }).waitFor();
    expect(failed.size).toBeGreaterThan(0);
  });

  it("says it could not be loaded, instead of an empty page, and opens once it can", async () => {
    const { page } = await suite.person({ viewport: PHONE });
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const { stop: stopFailing } = await failNewChunks(page, "always");
    await page.goto("/bookmarks").catch(() => undefined);
    // the app page itself is no chunk: it loads, and the screen's code does not
    await page.getByRole("heading", { level: 1, name: "Could not load this page" }).waitFor();
    await page.getByRole("alert").filter({ hasText: "could not load this page from the server" }).waitFor();
    await expectAccessible(page);
    await stopFailing();
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { level: 1, name: "Bookmarks" }).waitFor();
  });
});
