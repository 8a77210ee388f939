import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { pageProblems } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// What the first screen asks the server for, under the spec's per-address request budget
// (limits.clientRps at its default): the shell's start data comes in one answer, no two parts
// of a screen ask the same thing, and quick reloads stay inside the budget.
const suite = browserSuite({ "limits.clientRps": 20 });
/** How often a person reloading as fast as they can starts a load. */
const RELOAD_EVERY_MS = 500;
const { it } = suite;

/**
 * The Client API requests of PAGE's latest load ("GET /api/start"), counted from its document's
 * request (a late one of the page before does not count), and the statuses of all since now.
 */
function watchApi(page: Page) {
  const requests: string[] = [];
  const statuses: number[] = [];
  const isApi = (url: string) => new URL(url).pathname.startsWith("/api/");
  page.on("request", (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) requests.length = 0;
    else if (isApi(r.url())) requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  page.on("response", (r) => {
    if (isApi(r.url())) statuses.push(r.status());
  });
  return { requests, statuses };
}

/** The shell is there: the header's navigation with its links. */
async function shellShown(page: Page) {
  await page.getByRole("navigation").first().waitFor();
  await page
    .getByRole("link", { name: /^Messages/ })
    .first()
    .waitFor();
}

/** Lets requests a screen makes after it is shown (badges, live updates) arrive before counting. */
const settle = (page: Page) => page.waitForLoadState("networkidle");

describe("web app: the first screen's requests", () => {
  it("a feed load asks for the start data, the stories and the feed, once each, and the badges once live", async () => {
    const { page, context } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await settle(page);
    const seen = watchApi(page);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    await shellShown(page);
    await settle(page);
    expect(seen.requests.sort()).toEqual([
      "GET /api/social/feed",
      // the badges again once the live connection is open: what came between the start and it
      "GET /api/social/messages/unread",
      "GET /api/social/notifications",
      "GET /api/social/stories",
      "GET /api/start",
    ]);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it("opening a chat asks for the start data, the chat list and the chat's history, once each, and the badges once live", async () => {
    const { page, context } = await suite.person();
    const other = await suite.person();
    const username = other.user.username;
    await page.goto(`/dashboard/messages?user=${username}`);
    await page.waitForURL(/\/dashboard\/messages\/\w+$/);
    const chat = new URL(page.url()).pathname;
    await settle(page);
    const seen = watchApi(page);
    await page.reload();
    await page
      .getByRole("heading", { name: other.user.display_name ?? username })
      .first()
      .waitFor();
    await shellShown(page);
    await settle(page);
    const conversation = chat.split("/").pop();
    expect(seen.requests.sort()).toEqual(
      [
        "GET /api/social/messages",
        `GET /api/social/messages/${conversation}`,
        "GET /api/social/messages/unread",
        "GET /api/social/notifications",
        "GET /api/start",
        // which chat is in view, so its pushes wait (a write, once)
        "PUT /api/push/viewing",
        // sorted as the requests are: the chat's random id sorts before or after "unread"
      ].sort(),
    );
    await other.context.close();
    await context.close();
  });

  it("six quick reloads stay inside the budget: no refusal, no error, the shell and the feed each time", async () => {
    const { page, context } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    // the budget is the address's: the sign-in's requests leave its window first
    await Bun.sleep(1000);
    const seen = watchApi(page);
    for (let i = 0; i < 6; i++) {
      const started = Date.now();
      await page.reload();
      await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
      await shellShown(page);
      // a person's quick reloads, not the machine's: a load costs the budget up to six requests
      // (five asked below, and the socket's upgrade), so any second's three loads fit its 20
      await Bun.sleep(RELOAD_EVERY_MS - (Date.now() - started));
    }
    await page.getByText(/No posts yet|Nobody you follow has posted yet/).waitFor();
    expect(await page.getByText(/Too many/).count()).toBe(0);
    expect(seen.statuses.filter((s) => s === 429)).toEqual([]);
    // the last load, after the quick ones, asked for no more than the first screen needs (the
    // realtime socket's upgrade, which the page's requests do not list, is one more a load)
    expect(seen.requests.length).toBeLessThanOrEqual(5);
    await context.close();
  });
});
