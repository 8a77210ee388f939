import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import { existsSync } from "node:fs";
import { SOCIALCTL } from "../testing/cli";
import {
  browserAvailable,
  newPerson,
  pageProblems,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";

// `socialctl dev`'s one-time sign-in link, opened in a browser as its developer would.
const run = browserAvailable();
const b = run ? useBrowser() : null;

let dev: ReturnType<typeof Bun.spawn> & { stdout: ReadableStream<Uint8Array> };
let started: {
  url: string;
  dataDir: string;
  signInLink: string;
  bot: { username: string; token: string; apiRoot: string };
};

beforeAll(async () => {
  if (!run) return;
  dev = Bun.spawn([...SOCIALCTL, "--json", "dev", "--port", "0"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  }) as typeof dev;
  const first = await dev.stdout.getReader().read();
  started = JSON.parse(new TextDecoder().decode(first.value));
}, 30_000);

afterAll(async () => {
  if (!run) return;
  dev.kill("SIGINT");
  await dev.exited;
  expect(existsSync(started.dataDir)).toBe(false);
});

describe("web app: the sandbox's sign-in link", () => {
  test.skipIf(!run)(
    "signs the browser in as the person and lands in the chat with the bot, once",
    async () => {
      const { context, page } = await newPerson(b!.browser, started.url);
      const other = await newPerson(b!.browser, started.url);
      const bot = new Bot(started.bot.token, { client: { apiRoot: started.bot.apiRoot } });
      bot.command("start", (ctx) => ctx.reply("Hello from your bot"));
      void bot.start();
      await withScreenshots(
        "sandbox sign-in link",
        () => [page, other.page],
        async () => {
          await page.goto(started.signInLink);
          await page.waitForURL(/\/dashboard\/messages\/[a-z0-9]+$/);
          await page.getByRole("heading", { name: "Sandbox Bot" }).first().waitFor();
          await page.getByText("Run your bot with the token socialctl dev printed, then press Start.").waitFor();
          await page.getByRole("button", { name: "Start", exact: true }).click();
          await page
            .getByRole("listitem", { name: /Sandbox Bot/ })
            .getByText("Hello from your bot")
            .waitFor();
          expect(pageProblems(page)).toEqual([]);

          // used up: the same link signs nobody in a second time
          const again = await other.page.goto(started.signInLink);
          expect(again?.status()).toBe(410);
          await other.page
            .getByRole("heading", { name: "This sign-in link was already used or has expired" })
            .waitFor();
          await expectAccessible(other.page);
          expect((await other.context.cookies()).some((c) => c.name === "auth_access_token")).toBe(false);
        },
      );
      await bot.stop();
      await context.close();
      await other.context.close();
    },
    60_000,
  );
});
