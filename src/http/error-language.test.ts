import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quickPerson } from "../testing/fixtures";
import { inProcessApp, type InProcessApp } from "../testing/in-process";

let server: InProcessApp;
beforeAll(async () => {
  server = await inProcessApp({ registration: "open" });
});
afterAll(() => server.stop());

const RUSSIAN = { "accept-language": "ru-RU,ru;q=0.9,en;q=0.8" };

describe("the Client API's errors in the request's language", () => {
  test("a schema check's fields, in English by default and in Russian when asked", async () => {
    const client = server.client();
    await client.fetchCsrf();
    const body = {
      email: "ada@example.com",
      username: "ada_lovelace",
      password: "a long password",
      displayName: "x".repeat(65),
    };
    const english = await client.post("/api/auth/register", { ...body, email: undefined });
    expect(english.body.error).toEqual({
      code: "VALIDATION_ERROR",
      message: "Invalid request",
      details: { fieldErrors: { email: ["is required"], displayName: ["must be at most 64 characters"] } },
    });
    const russian = await client.post("/api/auth/register", { ...body, email: undefined }, { headers: RUSSIAN });
    expect(russian.body.error).toEqual({
      code: "VALIDATION_ERROR",
      message: "Запрос не прошёл проверку",
      details: { fieldErrors: { email: ["обязательно"], displayName: ["не длиннее 64 символов"] } },
    });
  });

  test("the domain's errors: a sentence, and a field's error with the field's name kept", async () => {
    const client = server.client();
    await client.fetchCsrf();
    const wrong = await client.post(
      "/api/auth/login",
      { email: "nobody@example.com", password: "wrong password" },
      { headers: RUSSIAN },
    );
    expect([wrong.status, wrong.body.error.code, wrong.body.error.message]).toEqual([
      401,
      "INVALID_CREDENTIALS",
      "Неверный e-mail или пароль",
    ]);

    const me = await quickPerson(server);
    const language = await me.client.patch(
      "/api/account/settings",
      { language: "xx" },
      { headers: { "accept-language": "ru" } },
    );
    expect(language.body.error.message).toBe("language: должно быть одним из: en, ru, или null для языка сервера");
    expect(language.body.error.details.fieldErrors).toEqual({
      language: ["должно быть одним из: en, ru, или null для языка сервера"],
    });
    const password = await me.client.post(
      "/api/auth/password/change",
      { currentPassword: "not the password", newPassword: "another long password" },
      { headers: RUSSIAN },
    );
    expect(password.body.error.details.fieldErrors).toEqual({ currentPassword: ["не подходит"] });
  });

  test("the front door's refusals too (a write without its CSRF token)", async () => {
    const res = await server.fetch("/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", ...RUSSIAN },
      body: JSON.stringify({ email: "a@example.com", password: "x" }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: unknown }).error).toEqual({
      code: "CSRF_TOKEN_INVALID",
      message: "Нет CSRF-токена или он неверен",
      details: [],
    });
  });

  test("a language the server has no texts in, and one it knows further down the list", async () => {
    const client = server.client();
    await client.fetchCsrf();
    const login = (language: string) =>
      client.post(
        "/api/auth/login",
        { email: "nobody@example.com", password: "wrong password" },
        { headers: { "accept-language": language } },
      );
    expect((await login("fr-FR,fr;q=0.9")).body.error.message).toBe("Wrong e-mail or password");
    expect((await login("fr-FR,ru;q=0.5")).body.error.message).toBe("Неверный e-mail или пароль");
  });

  test("the Bot API keeps Telegram's English, which bot libraries match on", async () => {
    const res = await server.fetch("/bot123:not-a-token/getMe", { headers: RUSSIAN });
    const body = (await res.json()) as { ok: boolean; description: string };
    expect([res.status, body.ok, body.description]).toEqual([401, false, "Unauthorized"]);
  });
});
