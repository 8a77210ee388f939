#!/usr/bin/env bun
/**
 * Screenshots of the web app for docs/web-app.md, taken from the real app: a
 * test server on loopback seeded through the Client API, chromium at a desktop (1280×800)
 * and a phone (390×844) size, light and dark, in each language of the app (English in the folder,
 * the others in a subfolder named by the language: docs/screenshots/ru/). PNGs are
 * palette-quantised by sharp to stay small.
 *
 * Usage: bun scripts/screenshots.ts [--out docs/screenshots] [--lang ru]
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { loadSharp } from "../src/media/sharp";
import { launchBrowser, newPerson, signedInPage } from "../src/testing/browser";
import { quickPerson } from "../src/testing/fixtures";
import { pngOf } from "../src/testing/media";
import { postAs } from "../src/testing/posts";
import { startTestServer } from "../src/testing/server";
import { postUpload } from "../src/testing/uploads";
import { botCall, createBotViaApi, openChat } from "../src/testing/botapi";
import { botApiUserId } from "../src/domain/bots/ids";

const outArg = process.argv.indexOf("--out");
const out = resolve(import.meta.dir, "..", outArg > 0 ? process.argv[outArg + 1]! : "docs/screenshots");
mkdirSync(out, { recursive: true });

const langArg = process.argv.indexOf("--lang");
/**
 * Each language's browser locale and the texts the script waits for on screens in it (the
 * settings screen is waited for by its heading, whatever its words).
 */
const LANGS = {
  en: {
    locale: "en-US",
    dir: out,
    signIn: "Sign in",
    commented: "commented on your post",
    story: /^Story by Ada Lovelace/,
    captcha: /code of five letters and digits/,
  },
  ru: {
    locale: "ru-RU",
    dir: join(out, "ru"),
    signIn: "Вход",
    commented: "комментарий к вашему посту",
    story: /^История Ada Lovelace/,
    captcha: /Код из пяти букв и цифр/,
  },
};
const langs = (langArg > 0 ? [process.argv[langArg + 1]!] : Object.keys(LANGS)) as Array<keyof typeof LANGS>;
for (const lang of langs) {
  if (!LANGS[lang]) throw new Error(`--lang: no screenshots set up for "${lang}" (${Object.keys(LANGS).join(", ")})`);
  mkdirSync(LANGS[lang].dir, { recursive: true });
}

const server = await startTestServer({ registration: "captcha" });
const browser = await launchBrowser();
const sharp = await loadSharp(server.app);

async function shotOf(page: Page, dir: string, name: string) {
  await page.waitForLoadState("networkidle");
  await Bun.sleep(200);
  const png = await page.screenshot();
  const small = await sharp(png).png({ palette: true, quality: 85, compressionLevel: 9 }).toBuffer();
  await Bun.write(join(dir, `${name}.png`), small);
  console.log(`${join(dir, name)}.png ${Math.round(small.length / 1024)} KB`);
}

try {
  // a small world: two people, a photo post, a poll, a conversation under a post
  const ada = await quickPerson(server, { username: "ada", displayName: "Ada Lovelace" });
  const grace = await quickPerson(server, { username: "grace", displayName: "Grace Hopper" });
  const upload = await postUpload(ada.client, "post", await pngOf(server.app, 1200, 600), {
    filename: "sky.png",
    type: "image/png",
  });
  await postAs(ada.client, {
    content:
      "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves. #engines",
    imageUrls: [upload.body.data.url],
  });
  await postAs(grace.client, {
    content: "Settle this for the team, please.",
    poll: { question: "Which should we debug first?", options: ["The moth", "The compiler", "The coffee machine"] },
  });
  const cover = await postUpload(ada.client, "cover", await pngOf(server.app, 1200, 400), {
    filename: "cover.png",
    type: "image/png",
  });
  await ada.client.patch("/api/account/profile", {
    bio: "Lady of the engine. Notes on #engines and poetical science.",
    coverUrl: cover.body.data.url,
  });
  await grace.client.post("/api/social/users/ada/follow");
  const talk = await postAs(grace.client, "It's easier to ask forgiveness than it is to get permission. @ada agree?");
  await ada.client.post(`/api/social/posts/${talk.id}/comments`, {
    content: "Entirely. Though the engine never asks either.",
  });
  await ada.client.post(`/api/social/posts/${talk.id}/like`);

  const storyPicture = await postUpload(ada.client, "story", await pngOf(server.app, 720, 1280), {
    filename: "story.png",
    type: "image/png",
  });
  await ada.client.post("/api/social/stories", {
    mediaUrl: storyPicture.body.data.url,
    caption: "Notes on the engine, page one",
  });

  // a bot, as a bot developer sees theirs in the app: a description, commands, a menu mini-app
  const botToken = await createBotViaApi(ada.client, "engine_bot", "Engine");
  await botCall(server.url, botToken, "setMyDescription", { description: "I compute Bernoulli numbers." });
  await botCall(server.url, botToken, "setMyCommands", {
    commands: [
      { command: "start", description: "Say hello" },
      { command: "bernoulli", description: "The next Bernoulli number" },
    ],
  });
  await botCall(server.url, botToken, "setChatMenuButton", {
    menu_button: { type: "web_app", text: "Notes", web_app: { url: "https://example.org/notes" } },
  });

  // every screen at a desktop in light and a phone in dark; the shell (feed, chat) in the other two as well
  for (const [lang, [scheme, viewport, suffix, every]] of langs.flatMap((lang) =>
    (
      [
        ["light", { width: 1280, height: 800 }, "desktop-light", true],
        ["dark", { width: 390, height: 844 }, "phone-dark", true],
        ["dark", { width: 1280, height: 800 }, "desktop-dark", false],
        ["light", { width: 390, height: 844 }, "phone-light", false],
      ] as const
    ).map((variant) => [lang, variant] as const),
  )) {
    const texts = LANGS[lang];
    const shot = (page: Page, name: string) =>
      every || /^(feed|chat)-/.test(name) ? shotOf(page, texts.dir, name) : Promise.resolve();
    const visitor = await newPerson(browser, server.url, { viewport, colorScheme: scheme, locale: texts.locale });
    await visitor.page.goto("/");
    await visitor.page.getByRole("heading", { level: 1, name: texts.signIn }).waitFor();
    await shot(visitor.page, `sign-in-${suffix}`);
    await visitor.context.close();

    const me = await signedInPage(browser, server, `you_${lang}_${suffix.replace("-", "_")}`, {
      viewport,
      colorScheme: scheme,
      locale: texts.locale,
    });
    await me.page.getByText("analytical engine").waitFor();
    await shot(me.page, `feed-${suffix}`);
    await me.page.goto(`/posts/${talk.id}`);
    await me.page.getByText("Though the engine never asks").waitFor();
    await shot(me.page, `post-${suffix}`);
    await me.page.goto("/users/ada");
    await me.page.getByText("Lady of the engine").waitFor();
    await shot(me.page, `profile-${suffix}`);

    // a little activity around this person: notifications, a followed story, settings
    const mine = await postAs(me.client, "Hello from the web app #engines");
    await grace.client.post(`/api/social/users/${me.user.username}/follow`);
    await ada.client.post(`/api/social/posts/${mine.id}/like`);
    await ada.client.post(`/api/social/posts/${mine.id}/comments`, { content: "Welcome aboard!" });
    await me.page.goto("/notifications");
    await me.page.getByRole("link", { name: texts.commented }).waitFor();
    await shot(me.page, `notifications-${suffix}`);
    await me.client.post("/api/social/users/ada/follow");
    await me.page.goto("/stories/ada");
    await me.page.getByRole("img", { name: texts.story }).waitFor();
    await shot(me.page, `story-${suffix}`);
    await me.page.goto("/settings");
    await me.page.getByRole("heading", { level: 1 }).waitFor();
    await shot(me.page, `settings-${suffix}`);

    // chats: a bot's answer with its buttons, and the chat list beside it on a desktop
    const withAda = await openChat(me.client, "ada");
    await me.client.post(`/api/social/messages/${withAda}`, { content: "Is the engine ready for the tables?" });
    await ada.client.post(`/api/social/messages/${withAda}`, { content: "Nearly. The cards are punched." });
    const withBot = await openChat(me.client, "engine_bot");
    await me.client.post(`/api/social/messages/${withBot}`, { content: "/start" });
    await botCall(server.url, botToken, "sendMessage", {
      chat_id: botApiUserId(me.user.id),
      text: "Welcome! <b>What shall I compute?</b>",
      parse_mode: "HTML",
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Bernoulli numbers", callback_data: "bernoulli" },
            { text: "Tables", callback_data: "tables" },
          ],
          [{ text: "Open the notes", web_app: { url: "https://example.org/notes" } }],
        ],
      },
    });
    await me.page.goto(`/dashboard/messages/${withBot}`);
    await me.page.getByText("What shall I compute?", { exact: true }).waitFor();
    await shot(me.page, `chat-${suffix}`);
    await me.context.close();
  }
  for (const lang of langs) {
    const phone = await newPerson(browser, server.url, {
      viewport: { width: 390, height: 844 },
      colorScheme: "light",
      locale: LANGS[lang].locale,
    });
    await phone.page.goto("/auth/register");
    await phone.page.getByRole("img", { name: LANGS[lang].captcha }).waitFor();
    await shotOf(phone.page, LANGS[lang].dir, "register-phone-light");
    await phone.context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
