import { describe, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { cookiesOf, newPerson, pageProblems, expectAccessible, expectTitle } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson, signedInClient } from "../testing/fixtures";

// The admin area in Russian: a browser whose language is Russian gets it without choosing.
const suite = browserSuite();
/** Screenshots of the Russian admin area at a phone's and a desktop's size, for a person to look at. */
const SHOTS = resolve(import.meta.dir, "../../.tmp/languages-admin");

async function russianAdmin(viewport: { width: number; height: number }) {
  const { client, user } = await signedInClient(suite.server, { isAdmin: true });
  const person = await newPerson(suite.browser, suite.server.url, { viewport, locale: "ru-RU" });
  suite.watch(person.page);
  await person.context.addCookies(cookiesOf(client, suite.server.url));
  return { ...person, user };
}

const adminNav = (page: Page) => page.getByRole("navigation", { name: "Администрирование" });

/** Nothing wider than the window: long Russian words wrap instead of pushing the page sideways. */
async function expectNoOverflow(page: Page, where: string) {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
  expect([where, widths.scroll <= widths.inner]).toEqual([where, true]);
}

describe("web app in Russian: the admin area", () => {
  suite.it(
    "shows its sections, counts and dates in Russian, with no accessibility findings",
    async () => {
      const { page, user } = await russianAdmin({ width: 1280, height: 800 });
      await page.goto("/admin");
      await page.getByRole("heading", { level: 1, name: "Администрирование" }).waitFor();
      await page.getByRole("heading", { level: 2, name: "Состояние сервера" }).waitFor();
      await page.locator("dl.figures dt", { hasText: "Версия" }).first().waitFor();
      await expectTitle(page, /Админка: Состояние/);

      // a date in the Russian way: "29 нояб. 2026 г., 04:05"
      await adminNav(page).getByRole("link", { name: "Аккаунты" }).click();
      await page.getByLabel("Поиск аккаунтов").fill(user.username);
      await page.getByRole("button", { name: "Найти" }).click();
      const row = page
        .getByRole("listitem")
        .filter({ has: page.getByRole("heading", { level: 3, name: `@${user.username}` }) });
      // the search answers from the long-read worker: wait for the row rather than count at once
      await row.getByText(/с нами с \d{1,2} [а-яё]+\.? \d{4} г\./).waitFor();
      await row.getByRole("button", { name: "Сделать админом" }).waitFor({ state: "detached" });
      await row.getByRole("group", { name: `Действия с @${user.username}` }).waitFor();
      await expectAccessible(page);

      // counted texts with Russian plural forms: 1 слово, 2 слова, 5 слов
      await adminNav(page).getByRole("link", { name: "Контент" }).click();
      const words = page.getByLabel("Слова, по одному в строке");
      const save = page.getByRole("button", { name: "Сохранить слова" });
      const saved = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();
      // the words load before the field is enabled
      await words.and(page.locator(":enabled")).waitFor();
      await words.fill("spam");
      await save.click();
      await saved("Сохранено 1 запрещённое слово;");
      await words.fill("spam\nscam");
      await save.click();
      await saved("Сохранено 2 запрещённых слова;");
      await words.fill("spam\nscam\nfraud\nphish\nbait");
      await save.click();
      await saved("Сохранено 5 запрещённых слов;");

      // a report's count beside its target, and the queue's own words
      const author = await quickPerson(suite.server);
      const post = (await author.client.post("/api/social/posts", { content: "Дешёвые подписчики" })).body.data.post;
      for (let i = 0; i < 2; i++) {
        const reporter = await quickPerson(suite.server);
        const res = await reporter.client.post("/api/social/reports", {
          target: { type: "post", id: post.id },
          reason: "spam",
        });
        expect(res.status).toBe(200);
      }
      await adminNav(page)
        .getByRole("link", { name: /^Жалобы/ })
        .click();
      await page.getByRole("heading", { level: 2, name: "Жалобы" }).waitFor();
      await page.getByText("2 жалобы", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Отклонить" }).waitFor();
      await expectAccessible(page);
      expect(pageProblems(page)).toEqual([]);
    },
    120_000,
  );

  suite.it(
    "fits a phone's and a desktop's width in every section",
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      for (const [label, viewport] of [
        ["phone", { width: 390, height: 844 }],
        ["desktop", { width: 1280, height: 800 }],
      ] as const) {
        const { page, context } = await russianAdmin(viewport);
        for (const section of [
          "",
          "reports",
          "accounts",
          "content",
          "bots",
          "settings",
          "invites",
          "maintenance",
          "audit",
        ]) {
          await page.goto(section ? `/admin/${section}` : "/admin");
          await page.getByRole("heading", { level: 1, name: "Администрирование" }).waitFor();
          await page.getByRole("heading", { level: 2 }).first().waitFor();
          await page.waitForFunction(() => !document.querySelector("[aria-busy='true'], .loading"));
          await expectNoOverflow(page, `${label} /admin/${section}`);
          await page.screenshot({ path: join(SHOTS, `${label}-${section || "status"}.png`), fullPage: true });
        }
        await context.close();
      }
    },
    180_000,
  );
});
