import { beforeAll, describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { requireMembershipByCuid, sendMessage } from "../domain/chats";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { quickPerson } from "../testing/fixtures";

// The app in Russian where a person chooses it (Settings → Language) and in the chat: the
// choice shows at once, stays after a reload and goes to the account; the chat's dates,
// counts and input in Russian, with nothing overflowing on a phone.
const suite = browserSuite();
const { it } = suite;
// the server builds the web app on its first page request: done before the first test's page waits for it
beforeAll(async () => void (await fetch(suite.server.url)).arrayBuffer(), 120_000);

function person(name: string, opts: { viewport?: { width: number; height: number }; locale?: string } = {}) {
  return suite.person({ ...opts, username: `${name.toLowerCase()}_${Math.random().toString(36).slice(2, 6)}` });
}

/**
 * A signed-in person whose browser asks for Russian (locale ru-RU) and who chose no language:
 * the app follows the browser. Shown at 390x844, a phone.
 */
const russianBrowser = (name: string) => person(name, { viewport: { width: 390, height: 844 }, locale: "ru-RU" });

/** A group owned by OWNER with MORE other members; its conversation id. */
async function group(owner: { client: any }, title: string, more: number): Promise<string> {
  const members: string[] = [];
  for (let i = 0; i < more; i++) members.push((await quickPerson(suite.server)).user.username);
  const res = await owner.client.post("/api/social/groups", { title, members });
  expect(res.status).toBe(200);
  return res.body.data.conversationId;
}

const overflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);

describe("web app in Russian: settings and chats", () => {
  it("choosing Русский in Settings turns the app Russian at once, keeps it on the account and after a reload", async () => {
    const me = await person("Vera");
    const { page } = me;
    await page.goto("/settings");
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    const select = page.getByRole("combobox", { name: "Language" });
    expect(await select.locator("option").allTextContents()).toEqual(["English", "Русский"]);

    const saved = page.waitForRequest((r) => r.url().endsWith("/api/account/settings") && r.method() === "PATCH", {
      timeout: 30_000,
    });
    await select.selectOption("ru");
    // at once, on the same page: no reload
    await page.getByRole("heading", { level: 1, name: "Настройки" }).waitFor();
    expect((await saved).postDataJSON()).toEqual({ language: "ru" });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("ru");
    await page.getByRole("region", { name: "Пароль" }).getByLabel("Текущий пароль").waitFor();
    await page
      .getByRole("group", { name: "Кто может мне писать" })
      .getByLabel("Только те, на кого я подписан(а)")
      .waitFor();
    expect(await page.getByRole("combobox", { name: "Язык" }).inputValue()).toBe("ru");

    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Настройки" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Язык" }).inputValue()).toBe("ru");
    await expectAccessible(page);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflows(page)).toBe(false);

    // the server's errors come in the app's language, not the browser's (English here)
    const password = page.getByRole("region", { name: "Пароль" });
    await password.getByLabel("Текущий пароль").fill("not my password");
    await password.getByLabel("Новый пароль", { exact: true }).fill("another long password");
    await password.getByLabel("Повторите новый пароль").fill("another long password");
    await password.getByRole("button", { name: "Сменить пароль" }).click();
    await password.getByText("Текущий пароль: не подходит.").waitFor();

    // and back to English the same way
    await page.getByRole("combobox", { name: "Язык" }).selectOption("en");
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    expect(pageProblems(page)).toEqual([]);
  });

  it("a browser in Russian gets the chat in Russian: day separators, member counts, the input and the message states; axe; nothing overflows on a phone", async () => {
    const me = await russianBrowser("masha");
    const { page } = me;
    const one = await group(me, "Одна", 0);
    const two = await group(me, "Двое", 1);
    const five = await group(me, "Пятеро", 4);
    // a message of today: its day separator is the date in Russian
    const { app } = suite.server;
    const conversationId = (await requireMembershipByCuid(app.db, five, me.user.id)).conversation.id;
    await sendMessage(app, { conversationId, senderId: me.user.id, content: "Привет всем" });

    const counts: Array<[string, string]> = [
      [one, "1 участник"],
      [two, "2 участника"],
      [five, "5 участников"],
    ];
    for (const [cid, text] of counts) {
      await page.goto(`/dashboard/messages/${cid}`);
      await page.locator(".chat-sub").getByText(text, { exact: true }).waitFor();
    }
    const today = new Intl.DateTimeFormat("ru", { dateStyle: "full", timeZone: "UTC" }).format(new Date());
    const history = page.getByRole("region", { name: "История сообщений" });
    await history.locator(".day-separator").getByText(today, { exact: true }).waitFor();
    expect(today).toMatch(/^[а-я]+, \d{1,2} [а-я]+ \d{4} г\.$/);
    // the group's notices are worded by the reader's app from what the server stores with them
    await history.locator(".msg-system", { hasText: "создал(а) группу «Пятеро»" }).waitFor();

    const input = page.getByLabel("Сообщение", { exact: true });
    await input.fill("Как дела?");
    await page.getByRole("button", { name: "Отправить" }).click();
    const sent = history.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: "Как дела?" }) });
    await sent.getByText("Отправлено").waitFor();
    expect(await sent.getAttribute("aria-label")).toMatch(/^Вы, \d{2}:\d{2}$/);
    await page.getByRole("button", { name: "Прикрепить файл" }).waitFor();
    await page.getByRole("button", { name: "Поиск в этом чате" }).waitFor();
    await page.getByRole("button", { name: "О группе" }).waitFor();
    // the message's menu in Russian
    await sent.getByRole("button", { name: "Действия с сообщением" }).click();
    await page.getByRole("button", { name: "Ответить", exact: true }).click();
    await page.getByText(`Ответ @${me.user.username}:`).waitFor();
    await page.getByRole("button", { name: "Отменить ответ" }).click();

    expect(await overflows(page)).toBe(false);
    await expectAccessible(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await overflows(page)).toBe(false);
    expect(pageProblems(me.page)).toEqual([]);
    await page.context().close();
  });
});
