import { afterAll, beforeAll, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ConfigKey } from "../config";
import { browserAvailable, signedInPage, useBrowser, withScreenshots } from "./browser";
import { startTestServer, type TestServer } from "./server";

type PersonOptions = Parameters<typeof signedInPage>[3] & { username?: string };

/**
 * One browser-test file's frame: a real server (OVERRIDES on top of the test defaults) and
 * one browser for the file; `it` skips without chromium and keeps screenshots of the pages
 * it touched when it fails; `person` is a signed-in browser profile (`signedInPage`) whose
 * page is watched.
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
      const p = await signedInPage(b!.browser, suite.server, opts.username, opts);
      pages.push(p.page);
      return p;
    },
  };
  return suite;
}
