import { describe, expect } from "bun:test";
import { Bot, InputFile } from "grammy";
import sharp from "sharp";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { createBotViaApi, waitFor, waitForLongPoll } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";

// Stickers in the chat screen: a person adds one from an image and sends it to a real grammY
// bot, saves the one the bot sends back, and sends it again from the panel.
const suite = browserSuite();
const it = suite.it;

/** A 128 px sticker-like PNG: a coloured disc on transparency. */
const disc = (colour: string) =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><circle cx="64" cy="64" r="60" fill="${colour}"/></svg>`,
    ),
  )
    .png()
    .toBuffer();

describe("web app: stickers", () => {
  it("adds a sticker from an image, sends it to a bot, saves the bot's sticker and sends it from the panel", async () => {
    const owner = (await quickPerson(suite.server)).client;
    const token = await createBotViaApi(owner, "sticker_web_bot", "Stickers");
    const bot = new Bot(token, { client: { apiRoot: suite.server.url } });
    const received: Array<{ id: string; unique: string; width: number }> = [];
    bot.on("message:sticker", async (ctx) => {
      const s = ctx.message.sticker;
      received.push({ id: s.file_id, unique: s.file_unique_id, width: s.width });
      // the first one is answered with a sticker of the bot's own
      if (received.length === 1) await ctx.replyWithSticker(new InputFile(await disc("#2a7"), "green.png"));
    });
    const running = bot.start({ timeout: 1, drop_pending_updates: true });
    await waitForLongPoll(suite.server.app, token);
    try {
      const { page } = await suite.person({ displayName: "Stella" });
      await page.goto("/dashboard/messages?user=sticker_web_bot");
      await page.getByRole("button", { name: "Start" }).waitFor();

      await page.getByRole("button", { name: "Stickers" }).click();
      const panel = page.getByRole("region", { name: "Your stickers" });
      await panel.getByText("No stickers yet").waitFor();
      await expectAccessible(page);
      await panel
        .getByLabel("Choose an image to add as a sticker")
        .setInputFiles({ name: "red.png", mimeType: "image/png", buffer: await disc("#c33") });
      await waitFor(() => received.length === 1, 10_000, "the person's sticker at the bot");
      expect(received[0]!.width).toBe(128);
      await expect(panel.count()).resolves.toBe(0);

      // the bot's answer is a sticker the person can keep
      const fromBot = page
        .getByRole("listitem")
        .filter({ has: page.getByRole("button", { name: "Save sticker" }) })
        .last();
      await fromBot.getByRole("img", { name: "Sticker" }).waitFor();
      await fromBot.getByRole("button", { name: "Save sticker" }).click();
      await fromBot.getByRole("button", { name: "Save sticker" }).waitFor({ state: "detached" });

      // the panel lists both, the saved one first; sending it reaches the bot as a sticker
      await page.getByRole("button", { name: "Stickers" }).click();
      await expect(panel.getByRole("button", { name: /^Send sticker / }).count()).resolves.toBe(2);
      await panel.getByRole("button", { name: "Send sticker 1" }).click();
      await waitFor(() => received.length === 2, 10_000, "the saved sticker at the bot");
      expect(received[1]!.unique).not.toBe(received[0]!.unique);

      // the collection outlives a reload; sending the first again reuses its upload
      await page.reload();
      await page.getByRole("button", { name: "Stickers" }).click();
      await panel.getByRole("button", { name: "Send sticker 2" }).click();
      await waitFor(() => received.length === 3, 10_000, "the first sticker again");
      expect(received[2]!.unique).toBe(received[0]!.unique);
      expect(pageProblems(page)).toEqual([]);
    } finally {
      await bot.stop();
      await running;
    }
  });
});
