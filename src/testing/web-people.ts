import { afterAll, beforeAll, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { App } from "../app";
import type { ConfigKey } from "../config";
import { browserAvailable, newPerson, useBrowser, withScreenshots } from "./browser";
import type { TestClient } from "./client";
import { quickPerson } from "./fixtures";
import { startTestServer, type TestServer } from "./server";

type PersonOptions = Parameters<typeof newPerson>[2] & { username?: string; displayName?: string };

/**
 * A fresh account already signed in in a new browser profile: the session of `quickPerson`
 * (no password hashing) copied into the browser's cookies. CLIENT speaks for the same session
 * over the API, for the parts of a journey that happen elsewhere.
 */
export async function signedInBrowser(browser: Browser, server: { app: App; url: string }, opts: PersonOptions = {}) {
  const { user, client } = await quickPerson(server, { username: opts.username, displayName: opts.displayName });
  const person = await newPerson(browser, server.url, opts);
  await person.context.addCookies(cookiesOf(client, server.url));
  return { ...person, user, client };
}

/** CLIENT's cookies in the shape a browser context takes. */
export const cookiesOf = (client: TestClient, url: string) => [...client.cookies].map(([name, value]) => ({ name, value: encodeURIComponent(value), url }));

/**
 * One browser-test file's frame: a real server (OVERRIDES on top of the test defaults) and
 * one browser for the file; `it` skips without chromium and keeps screenshots of the pages
 * it touched when it fails; `person` is a signed-in browser profile whose page is watched.
 */
export function browserSuite(overrides: Partial<Record<ConfigKey, unknown>> = {}) {
  const run = browserAvailable();
  const b = run ? useBrowser() : null;
  const pages: Page[] = [];
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(overrides);
  });
  afterAll(() => server?.stop());
  const suite = {
    get server(): TestServer {
      if (!server) throw new Error("the server is not started yet");
      return server;
    },
    get browser(): Browser {
      return b!.browser;
    },
    /** a page to screenshot if the running test fails */
    watch(page: Page) {
      pages.push(page);
    },
    it(name: string, body: () => Promise<void>, timeout = 60_000) {
      test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), timeout);
    },
    async person(opts: PersonOptions = {}) {
      const p = await signedInBrowser(b!.browser, suite.server, opts);
      pages.push(p.page);
      return p;
    },
  };
  return suite;
}
