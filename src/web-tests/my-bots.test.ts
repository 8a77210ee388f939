import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Bot, InputFile } from "grammy";
import { botSnippets } from "../lib/bot-libraries";
import { PNG_1x1 } from "../testing/botapi";
import { pageProblems, expectAccessible } from "../testing/browser";
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
      // the starter bots, filled with this instance and the token (each is run in src/botapi/snippets.test.ts)
      await dialog.getByText("node-telegram-bot-api 2", { exact: true }).click();
      const ntba = dialog.getByLabel("node-telegram-bot-api 2 starter bot");
      expect(await ntba.textContent()).toBe(
        botSnippets(suite.server.url, token).find((s) => s.id === "node-telegram-bot-api")!.code,
      );
      await dialog.getByRole("button", { name: "Copy the node-telegram-bot-api 2 bot" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`new Bot("${token}"`);
      await dialog.getByText(/^python-telegram-bot 13 /).click();
      expect(await dialog.getByLabel(/python-telegram-bot 13 .* starter bot/).textContent()).toContain(
        `base_url="${suite.server.url}/bot"`,
      );
      await dialog.getByRole("button", { name: "Copy token" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
      await expectAccessible(page);
      await dialog.getByRole("button", { name: "I saved the token" }).click();
      // closed with the click's own render: a dialog still modal for a frame made the page
      // inert, and the description typed at once below was lost (saved as "")
      expect(await page.evaluate(() => document.querySelector("dialog[open]") === null)).toBe(true);
      const card = page.getByRole("article", { name: /Weather/ });
      await card.getByLabel("Description").fill("I tell the weather.");

      // the token works against this instance
      const me = await (await fetch(`${suite.server.url}/bot${token}/getMe`)).json();
      expect(me.result.username).toBe("weather_helper_bot");

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

  suite.it(
    "edits the bot's commands: rows added, changed and removed; an error beside its field; the bot reads them",
    async () => {
      const { page, client, context } = await suite.person({ displayName: "Dev" });
      const token: string = (await client.post("/api/bots", { username: "menu_demo_bot", name: "Menu demo" })).body.data
        .token;
      const bot = new Bot(token, { client: { apiRoot: suite.server.url } });
      await bot.api.setMyCommands([{ command: "start", description: "Begin" }]);
      await page.goto("/dashboard/bots");
      const editor = page.getByRole("form", { name: "Commands" });
      expect(await editor.getByLabel("Command 1", { exact: true }).inputValue()).toBe("start");
      expect(await editor.getByLabel("Description 1", { exact: true }).inputValue()).toBe("Begin");

      await editor.getByRole("button", { name: "Add a command" }).click();
      await editor.getByLabel("Command 2", { exact: true }).fill("Weather-Now");
      await editor.getByLabel("Description 2", { exact: true }).fill("Today's weather");
      await editor.getByRole("button", { name: "Add a command" }).click();
      await editor.getByLabel("Command 3", { exact: true }).fill("help");
      await editor.getByLabel("Description 3", { exact: true }).fill("What I do");
      await editor.getByRole("button", { name: "Save commands" }).click();
      // the server's refusal, beside the field it is about, named as its description
      const problem = "command must contain only lowercase English letters, digits and underscores (1-32 characters)";
      await editor.getByText(problem).waitFor();
      await editor.getByRole("textbox", { name: "Command 2", exact: true, description: problem }).waitFor();
      expect(await editor.getByLabel("Command 2", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      await expectAccessible(page);
      expect((await bot.api.getMyCommands()).map((c) => c.command)).toEqual(["start"]);

      await editor.getByLabel("Command 2", { exact: true }).fill("weather");
      await editor.getByRole("button", { name: "Remove command 1" }).click();
      expect(await editor.getByLabel("Command 1", { exact: true }).inputValue()).toBe("weather");
      await editor.getByRole("button", { name: "Save commands" }).click();
      await editor.getByRole("status").filter({ hasText: "Commands saved" }).waitFor();
      expect(await bot.api.getMyCommands()).toEqual([
        { command: "weather", description: "Today's weather" },
        { command: "help", description: "What I do" },
      ]);
      // a reload shows what was saved
      await page.reload();
      expect(await editor.getByLabel("Command 2", { exact: true }).inputValue()).toBe("help");
      expect(await editor.getByLabel("Command 3", { exact: true }).count()).toBe(0);
      expect(pageProblems(page)).toEqual([]);
      await context.close();
    },
  );

  suite.it("shows the bot's developer log live while a real bot makes calls and receives updates", async () => {
    const { page, client, context } = await suite.person({ displayName: "Dev" });
    const created = await client.post("/api/bots", { username: "log_demo_bot", name: "Log demo" });
    const token: string = created.body.data.token;
    await page.goto("/dashboard/bots");
    const card = page.getByRole("article", { name: /Log demo/ });
    await card.getByText("Developer log").click();
    await card.getByRole("status").filter({ hasText: "Live." }).waitFor();
    await card.getByText("Nothing yet").waitFor();

    // a real bot library, pointed at this instance, while the page watches
    const bot = new Bot(token, { client: { apiRoot: suite.server.url } });
    await bot.api.getMe();
    const log = card.getByRole("log", { name: "Log of @log_demo_bot" });
    await log.getByText("getMe").waitFor();
    // the person writes; the bot fetches the update and answers with a photo and a refused empty text
    await client.post("/api/social/users/log_demo_bot/message", { start: "hello" });
    const updates = await bot.api.getUpdates({ timeout: 0 });
    expect(updates.length).toBe(1);
    const chatId = updates[0]!.message!.chat.id;
    await bot.api.sendPhoto(chatId, new InputFile(PNG_1x1, "dot.png"), { caption: "a dot" });
    await bot.api.sendMessage(chatId, "").catch(() => undefined);
    await log.getByText("update message via getUpdates").waitFor();
    const photo = log.getByRole("listitem").filter({ hasText: "sendPhoto" });
    // the file is elided to its name and size; the caption is shown
    await photo.getByText(/<file dot\.png, \d+ bytes>/).waitFor();
    await photo.getByText(/"caption":"a dot"/).waitFor();
    const refused = log.getByRole("listitem").filter({ hasText: "sendMessage" });
    await refused.getByText("error 400").waitFor();
    await refused.getByText("Bad Request: message text is empty").waitFor();
    // newest first
    expect(await log.getByRole("listitem").first().textContent()).toContain("sendMessage");
    await expectAccessible(page);
    mkdirSync(join(import.meta.dir, "../../.tmp/reference"), { recursive: true });
    await page.screenshot({ path: join(import.meta.dir, "../../.tmp/reference/bot-log.png"), fullPage: true });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
