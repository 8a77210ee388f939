import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { startTestSmtp, type ReceivedMail } from "../../testing/smtp";
import { startTestPushService, type BrowserSubscription, type TestPushService } from "../../testing/push-service";
import { quickPerson, signedInClient } from "../../testing/fixtures";
import { groupWithBurst } from "../../testing/chats";
import { TestClient } from "../../testing/client";
import { botCall, createBotViaApi, openChat as openBotChat } from "../../testing/botapi";
import { waitFor } from "../../testing/wait";
import { runCleanup } from "../../ops";
import { systemMessageIn, textFor } from "./language";
import { LANGUAGES } from "../../locales/languages";
import { verifyWebAppData } from "../bots/webapp";
import type { SystemMessage } from "../../locales/system-messages";

/*
 * The person's language (users.language): chosen at sign-up from Accept-Language or in the
 * settings, and what the server writes to them in: mails, pushes, chat notices, and what bots
 * see of them (language_code, the commands a bot set for that language).
 */

// mail and pushes go through the job queue's worker in real time
setDefaultTimeout(60_000);

const HOUR_MS = 3_600_000;

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let push: TestPushService;
let server: TestServer;
beforeAll(async () => {
  smtp = await startTestSmtp({ starttls: false });
  push = startTestPushService();
  server = await startTestServer({
    registration: "open",
    "smtp.host": "127.0.0.1",
    "smtp.port": smtp.port,
    "push.allowPrivateEndpoints": true,
  });
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
  push.stop();
});

type Person = Awaited<ReturnType<typeof quickPerson>>;

/** A person who chose LANGUAGE in their settings (null: none). */
async function personSpeaking(language: string | null, displayName?: string): Promise<Person> {
  const p = await quickPerson(server, { displayName });
  const res = await p.client.patch("/api/account/settings", { language });
  expect(res.status).toBe(200);
  expect(res.body.data.settings.language).toBe(language);
  return p;
}

/** The newest mail to ADDRESS, waiting for the COUNT-th. */
async function mailTo(address: string, count = 1): Promise<ReceivedMail> {
  return waitFor(
    () => {
      const mails = smtp.received.filter((m) => m.to.includes(address));
      return mails.length >= count ? mails[mails.length - 1] : undefined;
    },
    20_000,
    `a mail to ${address}`,
  );
}

let n = 0;
async function register(acceptLanguage?: string) {
  n++;
  const input = { email: `lang${n}@example.test`, username: `lang_${n}`, password: "long enough pw" };
  const client = new TestClient(server.url);
  const res = await client.post("/api/auth/register", input, {
    headers: acceptLanguage ? { "accept-language": acceptLanguage } : {},
  });
  expect(res.status).toBe(200);
  expect((await client.login(input.email, input.password)).status).toBe(200);
  return { client, input };
}

describe("the person's language", () => {
  test("sign-up takes it from Accept-Language when the server has it; the confirmation mail is in it", async () => {
    const russian = await register("ru-RU,ru;q=0.9,en-US;q=0.8");
    const me = await russian.client.get("/api/auth/me");
    expect(me.body.data.account.language).toBe("ru");
    expect((await russian.client.get("/api/start")).body.data.account.language).toBe("ru");
    const mail = await mailTo(russian.input.email);
    expect(mail.subject).toBe("Подтвердите адрес электронной почты");
    expect(mail.text).toContain("Ваш код подтверждения:");
    expect(mail.text).toContain(`${server.app.config.baseUrl}/auth/verify-email?token=`);

    // a language the server does not have, or none: the instance's default
    for (const header of ["de-DE,fr;q=0.5", undefined]) {
      const other = await register(header);
      expect((await other.client.get("/api/auth/me")).body.data.account.language).toBeNull();
      expect((await mailTo(other.input.email)).subject).toBe("Confirm your e-mail address");
    }
  });

  test("settings show and change it; a language the server does not have is a 400 naming the field", async () => {
    const p = await quickPerson(server);
    const settings = await p.client.get("/api/account/settings");
    expect(settings.body.data.settings).toEqual({ whoCanMessage: "everyone", botsMayWriteFirst: true, language: null });

    const changed = await p.client.patch("/api/account/settings", { language: "ru" });
    expect(changed.status).toBe(200);
    expect(changed.body.data.settings).toEqual({ whoCanMessage: "everyone", botsMayWriteFirst: true, language: "ru" });
    expect((await p.client.get("/api/auth/me")).body.data.account.language).toBe("ru");

    for (const bad of ["de", "RU", ""]) {
      const res = await p.client.patch("/api/account/settings", { language: bad, whoCanMessage: "nobody" });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors.language).toBeDefined();
    }
    // nothing of a refused change was kept
    expect((await p.client.get("/api/account/settings")).body.data.settings).toEqual({
      whoCanMessage: "everyone",
      botsMayWriteFirst: true,
      language: "ru",
    });

    // other settings leave it as it is; null goes back to the default
    await p.client.patch("/api/account/settings", { whoCanMessage: "followed" });
    expect((await p.client.get("/api/account/settings")).body.data.settings.language).toBe("ru");
    expect((await p.client.patch("/api/account/settings", { language: null })).body.data.settings.language).toBeNull();
    expect((await p.client.get("/api/auth/me")).body.data.account.language).toBeNull();
  });

  test("the OpenAPI document describes it", async () => {
    const doc = (await fetch(`${server.url}/api/openapi.json`).then((r) => r.json())) as any;
    const patch = doc.paths["/api/account/settings"].patch;
    const body = patch.requestBody.content["application/json"].schema;
    expect(JSON.stringify(body)).toContain("language");
    expect(JSON.stringify(doc)).toContain("the language the server writes to the person in");
  });
});

describe("mails", () => {
  test("a password-reset mail is in the account's language", async () => {
    const ru = await personSpeaking("ru");
    const en = await personSpeaking(null);
    const anonymous = new TestClient(server.url);
    for (const p of [ru, en])
      expect((await anonymous.post("/api/auth/password/forgot", { email: p.user.email })).status).toBe(200);
    const russian = await mailTo(ru.user.email!);
    expect(russian.subject).toBe("Сброс пароля");
    expect(russian.text).toContain("Чтобы выбрать новый пароль, откройте эту ссылку в течение часа:");
    expect((await mailTo(en.user.email!)).subject).toBe("Reset your password");
  });

  test("the digest counts in the person's language, with Russian plurals and the date through Intl", async () => {
    const ru = await personSpeaking("ru", "Аня");
    const en = await personSpeaking("en", "Ann");
    const writer = await quickPerson(server, { displayName: "Боб" });
    const start = server.app.clock.now() - 1_000;
    for (const p of [ru, en]) {
      expect(
        (await p.client.patch("/api/account/notification-settings", { email: { digest: true } })).body.data.email,
      ).toEqual({ digest: true });
      const opened = await writer.client.post(`/api/social/users/${p.user.username}/message`, {});
      for (const content of ["Привет", "Ты где?", "Позвони мне"])
        expect(
          (await writer.client.post(`/api/social/messages/${opened.body.data.conversationId}`, { content })).status,
        ).toBe(200);
      await server.app.db
        .updateTable("sessions")
        .set({ last_seen_at: start })
        .where("user_id", "=", p.user.id)
        .execute();
    }
    // the writer is about as well: only the two are away with something unread
    server.clock.advance(25 * HOUR_MS);
    await writer.client.get("/api/auth/me");
    expect((await runCleanup(server.app, "mail:digests")).result).toBeGreaterThanOrEqual(2);

    const russian = await mailTo(ru.user.email!);
    expect(russian.subject).toBe(`${server.app.config["instance.name"]}: 3 новых сообщения в 1 чате, пока вас не было`);
    expect(russian.text).toContain("Пока вас не было (с ");
    // the date as Russian writes it: the month's name in the genitive, "г." after the year
    expect(russian.text).toMatch(/\(с \d{1,2} [а-я]+ \d{4} г\. в \d{2}:\d{2} UTC\)/);
    expect(russian.text).toContain("Боб: 3 сообщения");
    expect(russian.text).toContain('"Позвони мне"');
    expect(russian.text).toContain(`Прочитать: ${server.app.config.baseUrl}/dashboard/messages`);

    const english = await mailTo(en.user.email!);
    expect(english.subject).toBe(
      `${server.app.config["instance.name"]}: 3 unread messages in 1 chat while you were away`,
    );
    expect(english.text).toMatch(/\(since [A-Z][a-z]+ \d{1,2}, \d{4} at \d{2}:\d{2} [AP]M UTC\)/);
    expect(english.text).toContain("Боб: 3 messages");
  });
});

describe("pushes", () => {
  /** Subscribes P's session at the loopback push service. */
  async function subscribe(p: Person): Promise<BrowserSubscription> {
    const browser = push.subscribe();
    expect(
      (await p.client.post("/api/push/subscriptions", { endpoint: browser.endpoint, keys: browser.keys })).status,
    ).toBe(200);
    return browser;
  }
  const payloads = (browser: BrowserSubscription) =>
    push.to(browser.endpoint).map((r) => JSON.parse(browser.decrypt(r.body)));

  test("one change pushed to people of two languages: each reads it in theirs, counted with the right plural", async () => {
    const ada = await personSpeaking(null, "Ada");
    const [ru, en] = [await personSpeaking("ru", "Боря"), await personSpeaking("en", "Cy")];
    const [forRu, forEn] = [await subscribe(ru), await subscribe(en)];
    // stored in one commit: one push stands for the three
    const cid = await groupWithBurst(
      server,
      ada,
      "Rowers",
      [ru, en],
      [
        [ada, { content: "Boat at six" }],
        [ada, { content: "Bring oars" }],
        [ada, { content: "", extra: { location: { latitude: 55.75, longitude: 37.62 } } }],
      ],
    );
    await push.waitFor(forRu.endpoint);
    await push.waitFor(forEn.endpoint);
    expect(payloads(forRu)).toEqual([
      {
        kind: "messages",
        title: "Rowers (3 новых сообщения)",
        body: "Ada: Местоположение",
        url: `/dashboard/messages/${cid}`,
      },
    ]);
    expect(payloads(forEn).map((p) => [p.title, p.body])).toEqual([["Rowers (3 new messages)", "Ada: Location"]]);

    // a follow: what the actor did, in the reader's words
    await ada.client.post(`/api/social/users/${ru.user.username}/follow`);
    await ada.client.post(`/api/social/users/${en.user.username}/follow`);
    const followOf = (browser: BrowserSubscription) =>
      waitFor(() => payloads(browser).find((p) => p.kind === "follows"), 15_000, "a follow's push");
    expect((await followOf(forRu)).body).toBe("подписался(-ась) на вас");
    expect((await followOf(forEn)).body).toBe("followed you");
  });
});

describe("chat notices", () => {
  test("a group's notices keep their structure, so each reader words them; the stored text is the default language's", async () => {
    const ada = await personSpeaking(null, "Ada");
    const bo = await personSpeaking("ru");
    const made = await ada.client.post("/api/social/groups", { title: "Гребцы", members: [bo.user.username] });
    expect(made.status).toBe(200);
    const res = await bo.client.get(`/api/social/messages/${made.body.data.conversationId}?limit=5`);
    const created = res.body.data.messages.find((m: any) => m.kind === "system");
    expect(created.content).toBe(`${ada.user.username} created the group "Гребцы"`);
    expect(created.system).toEqual({ action: "group_created", actor: ada.user.username, title: "Гребцы" });
    expect(systemMessageIn(await textFor("ru"), created.system, created.content)).toBe(
      `${ada.user.username} создал(а) группу «Гребцы»`,
    );
    // a structure this code does not word (an older row) shows its stored text
    expect(systemMessageIn(await textFor("ru"), { action: "payment", totalAmount: 5 }, "stored")).toBe("stored");
  });
});

test("every kind of chat notice is worded in every language, naming what it stores", async () => {
  const payment: SystemMessage = {
    action: "payment",
    payer: "bob",
    bot: "Shop",
    title: "Trip",
    totalAmount: 1500,
    currency: "XTR",
    invoiceMessageId: 3,
    chargeId: "c",
  };
  // each notice, with the stored values its text names
  const notices: Array<[SystemMessage, string[]]> = [
    [{ action: "group_created", actor: "ann", title: "Trip" }, ["ann", "Trip"]],
    [{ action: "member_added", actor: "ann", user: "bob" }, ["ann", "bob"]],
    [{ action: "member_removed", actor: "ann", user: "bob" }, ["ann", "bob"]],
    [{ action: "member_left", user: "bob" }, ["bob"]],
    [{ action: "member_joined", user: "bob" }, ["bob"]],
    [{ action: "title_changed", actor: "ann", title: "Trip", oldTitle: "Old" }, ["ann", "Trip"]],
    [{ action: "photo_changed", actor: "ann", photoUrl: "/files/x.webp" }, ["ann"]],
    [{ action: "photo_removed", actor: "ann", photoUrl: null }, ["ann"]],
    [payment, ["bob", "Shop", "Trip"]],
    [{ action: "refund", title: "Trip", totalAmount: 1500, currency: "XTR", chargeId: "c" }, ["Trip"]],
  ];
  for (const language of Object.keys(LANGUAGES)) {
    const t = await textFor(language);
    for (const [notice, names] of notices) {
      const text = systemMessageIn(t, notice, "fallback");
      expect(text).not.toBe("fallback");
      expect(text).not.toContain("{{");
      for (const name of names) expect(text).toContain(name);
    }
  }
  // amounts are numbers written the language's way
  expect(systemMessageIn(await textFor("en"), payment, "")).toBe('bob paid 1,500 ⭐ to Shop for "Trip"');
  expect(systemMessageIn(await textFor("ru"), payment, "")).toBe("bob заплатил(а) 1\u00a0500 ⭐ боту Shop за «Trip»");
});

describe("sign-in codes", () => {
  test("a code by mail or from the system account is in the person's language", async () => {
    const byMail = await signedInClient(server, { language: "ru" });
    const byMessage = await signedInClient(server, { language: "ru" });
    for (const [p, method] of [
      [byMail, "email"],
      [byMessage, "messenger"],
    ] as const) {
      const set = await p.client.post("/api/auth/2fa/method", { method, password: p.user.password });
      expect(set.status).toBe(200);
      expect((await new TestClient(server.url).login(p.user.email!, p.user.password)).status).toBe(401);
    }
    const mail = await mailTo(byMail.user.email!, 1);
    expect(mail.subject).toMatch(/^Ваш код для входа: \d{6}$/);
    expect(mail.text).toContain("Он действует 10 минут.");

    const chats = await byMessage.client.get("/api/social/messages");
    const withSystem = chats.body.data.conversations.find((c: any) => c.lastMessage?.sender?.isSystem);
    expect(withSystem.lastMessage.content).toMatch(/^Ваш код для входа: \d{6}$/);
  });
});

describe("bots", () => {
  test("a person's language is their language_code; a bot's commands for it are what they see", async () => {
    const owner = await quickPerson(server);
    const token = await createBotViaApi(owner.client, "lingua_bot", "Lingua");
    const ru = await personSpeaking("ru");
    const unset = await personSpeaking(null);
    for (const p of [ru, unset]) {
      const cid = await openBotChat(p.client, "lingua_bot");
      expect((await p.client.post(`/api/social/messages/${cid}`, { content: "hello" })).status).toBe(200);
    }
    const updates = (await botCall(server.url, token, "getUpdates", { timeout: 0 })).body.result as any[];
    const from = (user: Person) => updates.find((u) => u.message?.from?.username === user.user.username)?.message.from;
    expect(from(ru)).toMatchObject({ is_bot: false, language_code: "ru" });
    // omitted, never null, when the person chose none
    expect(from(unset)).toBeDefined();
    expect("language_code" in from(unset)).toBe(false);

    const set = (params: Record<string, unknown>) => botCall(server.url, token, "setMyCommands", params);
    expect((await set({ commands: [{ command: "help", description: "Get help" }] })).body.ok).toBe(true);
    expect((await set({ commands: [{ command: "help", description: "Помощь" }], language_code: "ru" })).body.ok).toBe(
      true,
    );
    const shown = async (p: Person) => (await p.client.get("/api/social/bots/lingua_bot")).body.data.bot.commands;
    expect(await shown(ru)).toEqual([{ command: "help", description: "Помощь" }]);
    expect(await shown(unset)).toEqual([{ command: "help", description: "Get help" }]);

    // a narrower scope wins: all private chats, then (for the Russian list) the person's own chat
    expect(
      (
        await set({
          commands: [{ command: "start", description: "Begin" }],
          scope: { type: "all_private_chats" },
        })
      ).body.ok,
    ).toBe(true);
    expect(await shown(ru)).toEqual([{ command: "start", description: "Begin" }]);
    const chatId = from(ru).id;
    expect(
      (
        await set({
          commands: [{ command: "start", description: "Начать" }],
          scope: { type: "chat", chat_id: chatId },
          language_code: "ru",
        })
      ).body.ok,
    ).toBe(true);
    expect(await shown(ru)).toEqual([{ command: "start", description: "Начать" }]);
    expect(await shown(unset)).toEqual([{ command: "start", description: "Begin" }]);

    // a mini-app's signed launch data names the person's language too
    const sent = await botCall(server.url, token, "sendMessage", {
      chat_id: chatId,
      text: "open",
      reply_markup: { inline_keyboard: [[{ text: "App", web_app: { url: "https://app.example.com/start" } }]] },
    });
    expect(sent.body.ok).toBe(true);
    const cid = await openBotChat(ru.client, "lingua_bot");
    const launched = await ru.client.post(`/api/social/messages/${cid}/${sent.body.result.message_id}/web-app`, {
      url: "https://app.example.com/start",
    });
    expect(launched.status).toBe(200);
    const initData = new URLSearchParams(new URL(launched.body.data.url).hash.slice(1)).get("tgWebAppData")!;
    const fields = verifyWebAppData(token, initData);
    expect(JSON.parse(fields!.user!)).toMatchObject({ id: chatId, language_code: "ru" });
  });
});
