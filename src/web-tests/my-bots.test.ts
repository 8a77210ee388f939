import { describe, expect } from "bun:test";
import { accessibilityViolations, pageProblems } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { waitFor } from "../testing/wait";

// "My bots" (/dashboard/bots), clicked through as a bot developer.
const suite = browserSuite();

describe("web app: my bots", () => {
  suite.it(
    "creates a bot, shows its token once with the library settings, edits settings, reissues the token",
    async () => {
      const { page, context } = await suite.person({ displayName: "Dev" });
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await page.goto("/dashboard/bots");
      await page.getByRole("heading", { level: 1, name: "My bots" }).waitFor();
      await page.getByText("No bots yet").waitFor();

      await page.getByLabel("Bot username").fill("weather_helper");
      await page.getByText("A bot's username ends in _bot.").waitFor();
      await page.getByLabel("Bot username").fill("weather_helper_bot");
      await page.getByLabel("Bot name").fill("Weather");
      await page.getByRole("button", { name: "Create bot" }).click();

      const dialog = page.getByRole("dialog", { name: "Token of @weather_helper_bot" });
      const token = await dialog.getByLabel("Bot token").inputValue();
      expect(token).toMatch(/^\d+:[A-Za-z0-9_-]{20,}$/);
      await dialog.getByText(`new Bot("${token}", { client: { apiRoot: "${suite.server.url}" } })`).waitFor();
      await dialog.getByText(`Updater("${token}", base_url="${suite.server.url}/bot")`).waitFor();
      await dialog.getByRole("button", { name: "Copy token" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
      expect(await accessibilityViolations(page)).toEqual([]);
      await dialog.getByRole("button", { name: "I saved the token" }).click();

      // the token works against this instance
      const me = await (await fetch(`${suite.server.url}/bot${token}/getMe`)).json();
      expect(me.result.username).toBe("weather_helper_bot");

      const card = page.getByRole("article", { name: /Weather/ });
      await card.getByLabel("Description").fill("I tell the weather.");
      await card.getByRole("button", { name: "Save description" }).click();
      await card.getByRole("status").filter({ hasText: "Saved" }).waitFor();
      await card.getByLabel("Enabled").uncheck();
      await card.getByLabel(/Privacy mode/).check();
      const row = () =>
        suite.server.app.db
          .selectFrom("bots")
          .select(["description", "privacy", "disabled_at"])
          .executeTakeFirstOrThrow();
      await waitFor(
        async () => {
          const r = await row();
          return r.privacy === "commands" && r.disabled_at !== null;
        },
        5000,
        "the settings to be saved",
      );
      expect((await row()).description).toBe("I tell the weather.");
      await card.getByText("Held: ★ 0 · Withdrawable: ★ 0").waitFor();

      // reissue: a warning first, then the new token once; the old one stops working
      await card.getByRole("button", { name: "Reissue the token" }).click();
      await card.getByText("The current token stops working at once").waitFor();
      await card.getByRole("button", { name: "Reissue now" }).click();
      const fresh = await page
        .getByRole("dialog", { name: "Token of @weather_helper_bot" })
        .getByLabel("Bot token")
        .inputValue();
      expect(fresh).not.toBe(token);
      expect((await fetch(`${suite.server.url}/bot${token}/getMe`)).status).toBe(401);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
  );
});
