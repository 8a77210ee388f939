import { afterAll, beforeAll, expect } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import axeCore from "axe-core";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import type { App } from "../app";
import type { UserRow } from "../domain/users/table";
import type { TestClient } from "./client";
import { quickPerson } from "./fixtures";
import { waitFor } from "./wait";

/**
 * Browser tests: playwright-core driving the system's chromium (Debian's package; no browser
 * download), one browser per test file, a fresh context (cookies, storage) per person.
 * Tests find things by label, role and text, as a person or a screen reader does.
 */

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const SHOTS = resolve(import.meta.dir, "../../.tmp/browser-failures");
/**
 * How long a step waits for what it expects (a screen, a button, a message) before the test
 * fails: long enough for a screen's first paint on a 2-core machine running the suite's parts at
 * once. A test's own timeout still bounds the whole.
 */
export const STEP_TIMEOUT_MS = 20_000;

/**
 * Whether browser tests can run here. Without chromium they fail under CI (CI=true), where
 * .ci/run installs it, and are skipped with a message elsewhere.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI)
    throw new Error(`chromium is missing at ${CHROMIUM_PATH}: browser tests cannot run (apt-get install -y chromium)`);
  console.warn(
    `skipping browser tests: no chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true });
}

/** One browser for the whole file: launched before its tests, closed after. */
export function useBrowser(): { readonly browser: Browser } {
  const holder: { browser?: Browser } = {};
  beforeAll(async () => {
    holder.browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await holder.browser?.close();
  });
  return {
    get browser() {
      if (!holder.browser) throw new Error("the browser is not launched yet");
      return holder.browser;
    },
  };
}

export interface Person {
  context: BrowserContext;
  page: Page;
}

/** A new browser profile (own cookies) with one page, at BASEURL; service workers blocked unless asked for. */
export async function newPerson(
  browser: Browser,
  baseURL: string,
  opts: {
    viewport?: { width: number; height: number };
    colorScheme?: "light" | "dark";
    /**
     * allow: the app's service worker installs (and fetches every chunk of the app to keep it);
     * only the tests of the installed app need it, the others skip that work
     */
    serviceWorkers?: "allow" | "block";
    /** the browser's language (navigator.languages and Accept-Language); English unless asked */
    locale?: string;
  } = {},
): Promise<Person> {
  const context = await browser.newContext({
    baseURL,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? "light",
    serviceWorkers: opts.serviceWorkers ?? "block",
    locale: opts.locale ?? "en-US",
    timezoneId: "UTC",
  });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on(
    "console",
    (msg) =>
      msg.type() === "error" &&
      !/Failed to load resource/.test(msg.text()) &&
      problems.push(`console error: ${msg.text()}`),
  );
  (page as Page & { problems?: string[] }).problems = problems;
  // for the failure notes of withScreenshots only: a page's streams are cut on every navigation
  const requests: string[] = [];
  page.on("requestfailed", (r) => requests.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on("response", (r) => r.status() >= 400 && requests.push(`${r.request().method()} ${r.url()}: ${r.status()}`));
  (page as Page & { refused?: string[] }).refused = requests;
  return { context, page };
}

/**
 * Waits until PAGE's document title is TITLE (or matches it): a screen sets the title just after
 * it is drawn, so a title read the moment its heading shows may still be the last screen's.
 */
export async function expectTitle(page: Page, title: string | RegExp): Promise<void> {
  const pattern = typeof title === "string" ? { source: `^${RegExp.escape(title)}$`, flags: "" } : title;
  try {
    await page.waitForFunction(
      ({ source, flags }) =>
        new RegExp(source, flags).test((globalThis as unknown as { document: { title: string } }).document.title),
      { source: pattern.source, flags: pattern.flags },
      { timeout: STEP_TIMEOUT_MS },
    );
  } catch {
    expect(await page.title()).toMatch(pattern instanceof RegExp ? pattern : new RegExp(pattern.source));
  }
}

/** Waits until LOCATOR's element has the focus: a screen moves it just after the update that drew it. */
export async function expectFocused(locator: Locator): Promise<void> {
  const element = await locator.elementHandle();
  const focused = (el: unknown) =>
    el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement;
  try {
    await locator.page().waitForFunction(focused, element, { timeout: STEP_TIMEOUT_MS });
  } catch {
    expect(await locator.evaluate(focused)).toBe(true);
  }
}

/** Uncaught errors and console errors the page produced so far (a CSP violation shows up here too). */
export const pageProblems = (page: Page): string[] => (page as Page & { problems?: string[] }).problems ?? [];

/**
 * axe-core's WCAG 2.1 A/AA findings on the page as it is now, one line each (empty when clean).
 * A page without frames is checked in place (axe's legacy mode: the same rules and findings);
 * the default mode opens a blank page per check to gather the frames' results, which only a
 * page with frames (possibly of other origins, which legacy mode skips) needs.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const inPlace = page.frames().length === 1;
  // AxeBuilder evaluates axe-core's whole source twice per check; in place, the page
  // gets it once per load and each later check hands AxeBuilder an empty statement instead
  if (inPlace && !(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeCore.source);
  const result = await new AxeBuilder({ page, ...(inPlace ? { axeSource: ";" } : {}) })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .setLegacyMode(inPlace)
    .analyze();
  return result.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 3)
        .join(", ")}`,
  );
}

/** Fails with axe-core's findings when the page as it is now breaks a WCAG 2.1 A/AA rule. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

/**
 * Runs a test body; on failure saves a screenshot of each given page under
 * .tmp/browser-failures/ before rethrowing, so a red CI run shows what the browser saw, and
 * beside it (.txt) the page's address, its errors, and its requests that failed or were refused.
 */
export async function withScreenshots(name: string, pages: () => Page[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    mkdirSync(SHOTS, { recursive: true });
    const safe = name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80);
    await Promise.all(
      pages().flatMap((p, i) => [
        p.screenshot({ path: join(SHOTS, `${safe}-${i}.png`), fullPage: true }).catch(() => undefined),
        Bun.write(
          join(SHOTS, `${safe}-${i}.txt`),
          [
            `at ${p.url()}`,
            ...pageProblems(p),
            "requests that failed or were refused:",
            ...((p as Page & { refused?: string[] }).refused ?? []),
          ].join("\n") + "\n",
        ).catch(() => undefined),
      ]),
    );
    throw err;
  }
}

/**
 * A person with a fresh account, already signed in (session cookies put in a new browser
 * profile, no password round trip), looking at the feed. CLIENT acts as the same person
 * over the API.
 */
export async function signedInPage(
  browser: Browser,
  server: { app: App; url: string },
  username?: string,
  opts: Parameters<typeof newPerson>[2] & { displayName?: string } = {},
): Promise<Person & { client: TestClient; user: UserRow }> {
  const { user, client } = await quickPerson(server, { username, displayName: opts.displayName });
  const person = await newPerson(browser, server.url, opts);
  await person.context.addCookies(cookiesOf(client, server.url));
  await person.page.goto("/");
  return { ...person, client, user };
}

/** Signs in through the sign-in form with E-MAIL and PASSWORD, as a person does, and waits for the feed. */
export async function signInThroughForm(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
}

/** CLIENT's session cookies in the shape a browser context takes (to continue its session in a browser). */
export function cookiesOf(client: TestClient, url: string) {
  const { hostname } = new URL(url);
  return [...client.cookies].map(([name, value]) => ({
    name,
    value: encodeURIComponent(value),
    domain: hostname,
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
  }));
}

/** What pushDelivery reads in the page (this module is compiled without the DOM's types). */
interface InPage {
  location: { href: string };
  navigator: {
    serviceWorker: {
      ready: Promise<{
        getNotifications(): Promise<Array<{ title: string; body: string; tag: string; icon: string; data: unknown }>>;
      }>;
    };
  };
}

/** A notification the app's service worker shows, as `getNotifications()` lists it. */
export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  icon: string;
  url: string;
}

/**
 * Delivers pushes to the app's service worker as a push service would (DevTools'
 * deliverPushMessage) and lists the notifications once the worker has shown the push's.
 * Chromium's `getNotifications()` drops a notification it is still displaying from its store, so
 * the list is read only after the worker's `showNotification` has settled; the wrapper that counts
 * them is installed in the running worker, which the open page keeps alive.
 */
export async function pushDelivery(person: Person, origin: string) {
  const { context, page } = person;
  await page.evaluate(() => (globalThis as unknown as InPage).navigator.serviceWorker.ready.then(() => true));
  const cdp = await context.newCDPSession(page);
  let registrationId: string | undefined;
  cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
    for (const r of e.registrations) if (!r.isDeleted && r.scopeURL === `${origin}/`) registrationId = r.registrationId;
  });
  await cdp.send("ServiceWorker.enable");
  await waitFor(() => registrationId, 10_000, "the service worker's registration");
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  const settled = () =>
    worker.evaluate(() => {
      const scope = globalThis as unknown as {
        settledNotifications?: number;
        registration: { showNotification(...args: unknown[]): Promise<void> };
      };
      if (scope.settledNotifications === undefined) {
        scope.settledNotifications = 0;
        const show = scope.registration.showNotification.bind(scope.registration);
        scope.registration.showNotification = (...args) =>
          show(...args).finally(() => void (scope.settledNotifications! += 1));
      }
      return scope.settledNotifications;
    });
  const shown = (): Promise<ShownNotification[]> =>
    page.evaluate(async () => {
      const { navigator, location } = globalThis as unknown as InPage;
      return (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
        title: n.title,
        body: n.body,
        tag: n.tag,
        icon: new URL(n.icon, location.href).pathname,
        url: (n.data as { url: string }).url,
      }));
    });
  return {
    /** delivers DATA (the push's payload as the service carried it) and lists the notifications after it is shown */
    async deliver(data: string): Promise<ShownNotification[]> {
      const before = await settled();
      await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId: registrationId!, data });
      // a busy machine's Chromium may take seconds to run the worker's push event
      await waitFor(async () => (await settled()) > before, 30_000, "the worker to show the push");
      return shown();
    },
    detach: () => cdp.detach(),
  };
}
