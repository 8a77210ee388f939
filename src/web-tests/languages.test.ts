import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { newPerson, expectAccessible, expectTitle } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson } from "../testing/fixtures";
import { postAs } from "../testing/posts";

// The web app in Russian: a browser whose language is Russian gets the app in Russian, counted
// words in the right plural form, dates the Russian way, and nothing wider than the screen.
const suite = browserSuite();
const { it } = suite;

const PHONE = { width: 390, height: 844 };

/** Whether anything on the page is wider than the window (a long Russian word pushing it out). */
const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** A person with COUNT followers (each a new account following them). */
async function personWithFollowers(count: number, displayName: string) {
  const person = await quickPerson(suite.server, { displayName });
  for (let i = 0; i < count; i++) {
    const follower = await quickPerson(suite.server);
    await follower.client.post(`/api/social/users/${person.user.username}/follow`);
  }
  return person;
}

describe("web app in Russian", () => {
  it("shows the shell and the feed in Russian, with the page's language set", async () => {
    const me = await suite.person({ locale: "ru-RU" });
    await postAs(me.client, "Привет из ленты");
    await me.page.reload();
    await me.page.getByRole("heading", { level: 1, name: "Лента" }).waitFor();
    expect(await me.page.evaluate(() => document.documentElement.lang)).toBe("ru");
    const nav = me.page.getByRole("navigation", { name: "Главное меню" });
    for (const label of ["Лента", "Сообщения", "Истории", "Уведомления", "Профиль", "Поиск", "Настройки"])
      await nav.getByRole("link", { name: label, exact: true }).waitFor();
    await me.page.getByRole("button", { name: "Выйти" }).waitFor();
    await me.page.getByText("Привет из ленты").waitFor();
    await expectTitle(me.page, /^Лента · /);
    await expectAccessible(me.page);
    await me.context.close();
  });

  it("counts followers in the Russian plural forms and dates a profile the Russian way", async () => {
    const me = await suite.person({ locale: "ru-RU", viewport: PHONE });
    for (const [count, words] of [
      [1, "1 подписчик"],
      [2, "2 подписчика"],
      [5, "5 подписчиков"],
    ] as const) {
      const person = await personWithFollowers(count, `Человек ${count}`);
      await me.page.goto(`/users/${person.user.username}`);
      await me.page.getByRole("heading", { level: 1, name: `Человек ${count}` }).waitFor();
      await me.page.getByRole("link", { name: words, exact: true }).waitFor();
      await me.page.getByRole("button", { name: "Подписаться", exact: true }).waitFor();
      const joined = new Intl.DateTimeFormat("ru", { dateStyle: "long", timeZone: "UTC" }).format(
        new Date(person.user.created_at),
      );
      await me.page.getByText(`С нами с ${joined}`).waitFor();
      expect(await overflows(me.page)).toBe(false);
    }
    await me.context.close();
  });

  it("fits a phone: no screen wider than it, no tab label cut", async () => {
    const me = await suite.person({ locale: "ru-RU", viewport: PHONE, colorScheme: "dark" });
    await postAs(me.client, "Пост, чтобы лента не была пустой");
    for (const [path, heading] of [
      ["/", "Лента"],
      ["/search", "Поиск"],
      ["/notifications", "Уведомления"],
      ["/stories", "Истории"],
      ["/stars", "Звёзды"],
      ["/bookmarks", "Закладки"],
      ["/dashboard/bots", "Мои боты"],
    ] as const) {
      await me.page.goto(path);
      await me.page.getByRole("heading", { level: 1, name: heading }).waitFor();
      expect(await overflows(me.page)).toBe(false);
    }
    const cut = await me.page.evaluate(() =>
      [...document.querySelectorAll(".nav-tabs .nav-label")]
        .filter((label) => label.scrollWidth > label.clientWidth)
        .map((label) => label.textContent),
    );
    expect(cut).toEqual([]);
    await me.context.close();
  });

  it("follows the browser's language on the sign-in screen", async () => {
    const { context, page } = await newPerson(suite.browser, suite.server.url, {
      locale: "ru-RU",
      viewport: PHONE,
    });
    suite.watch(page);
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Вход" }).waitFor();
    await page.getByLabel("Эл. почта", { exact: true }).waitFor();
    await page.getByLabel("Пароль", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Войти" }).waitFor();
    expect(await overflows(page)).toBe(false);
    await expectAccessible(page);
    await context.close();
  });
});
