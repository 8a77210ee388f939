import { describe, expect } from "bun:test";
import { applyLiveSettings, planLiveSettings } from "../domain/admin/settings";
import { browserSuite } from "../testing/browser-suite";

// A person reloading quickly on an instance with a tight per-address budget: the app keeps its
// header and navigation, waits out each Retry-After and shows the screen, never the error.
const suite = browserSuite({ "limits.blockAfterRejections": 1_000_000 });
const { it } = suite;

describe("web app: the per-address request budget", () => {
  it("quick reloads under a tight budget end on the feed, not on 'Too many requests'", async () => {
    const { page, context } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const app = suite.server.app;
    await applyLiveSettings(app, planLiveSettings(app, { "limits.clientRps": 3 }), null);
    try {
      for (let i = 0; i < 5; i++) await page.goto("/", { waitUntil: "commit" });
      await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor({ timeout: 30_000 });
      await page
        .getByRole("link", { name: /^Messages/ })
        .first()
        .waitFor();
      // every read of the screen got its answer in the end
      await page.getByText(/No posts yet|Nobody you follow has posted yet/).waitFor({ timeout: 30_000 });
      expect(await page.getByText(/Too many/).count()).toBe(0);
    } finally {
      await applyLiveSettings(app, planLiveSettings(app, { "limits.clientRps": 1_000_000 }), null);
    }
    await context.close();
  });
});
