import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("csrf", () => {
  test("issues a signed token and sets the readable cookie", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/csrf");
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.csrfToken).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(res.body.data.captchaRequired).toBe(false);
    expect(c.cookies.get("csrf_token")).toBe(res.body.data.csrfToken);
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith("csrf_token="))!;
    expect(cookie).not.toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("mutating requests without a matching header are refused", async () => {
    const c = new TestClient(server.url);
    let res = await c.post("/api/auth/login", { email: "a@b.cd", password: "x" }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: { code: "CSRF_TOKEN_INVALID", message: expect.any(String), details: [] },
    });
    await c.fetchCsrf();
    res = await c.post(
      "/api/auth/login",
      { email: "a@b.cd", password: "x" },
      { headers: { "x-csrf-token": c.csrf + "x" } },
    );
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
    // a forged pair that matches but is not signed by this instance
    c.cookies.set("csrf_token", "forged.value");
    res = await c.post(
      "/api/auth/login",
      { email: "a@b.cd", password: "x" },
      { headers: { "x-csrf-token": "forged.value" } },
    );
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});

describe("csrf on every mutating auth endpoint", () => {
  const MUTATING: Array<[string, string, unknown]> = [
    ["POST", "/api/auth/login", { email: "a@b.cd", password: "x" }],
    ["POST", "/api/auth/logout", {}],
    ["POST", "/api/auth/register", { email: "csrf@example.test", username: "csrf_user", password: "long enough pw" }],
    ["POST", "/api/auth/email/verify", { token: "abc" }],
    ["POST", "/api/auth/email/resend", {}],
    ["POST", "/api/auth/password/change", { currentPassword: "abcdefghij", newPassword: "abcdefghij" }],
    ["POST", "/api/auth/password/forgot", { email: "a@b.cd" }],
    ["POST", "/api/auth/password/reset", { token: "abc", newPassword: "abcdefghij" }],
    ["POST", "/api/auth/2fa/totp/setup", {}],
    ["POST", "/api/auth/2fa/totp/enable", { code: "123456" }],
    ["POST", "/api/auth/2fa/disable", { password: "x" }],
    ["POST", "/api/auth/2fa/method", { method: "email", password: "x" }],
    ["POST", "/api/auth/qr/start", {}],
    ["POST", "/api/auth/qr/approve", { token: "abc" }],
    ["POST", "/api/auth/qr/claim", { token: "abc" }],
    ["POST", "/api/auth/sessions/revoke-others", {}],
    ["DELETE", "/api/auth/sessions/abc", undefined],
  ];

  test("a signed-in client without the header, or with another token's header, gets 403 and changes nothing", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const other = await new TestClient(server.url).fetchCsrf(); // validly signed, but not this client's cookie
    for (const [method, path, body] of MUTATING) {
      for (const headers of [{}, { "x-csrf-token": other }, { "x-csrf-token": "" }] as Array<Record<string, string>>) {
        const res = await c.request(method, path, body, { csrf: false, headers });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          success: false,
          error: { code: "CSRF_TOKEN_INVALID", message: "Missing or invalid CSRF token", details: [] },
        });
        expect(res.headers.getSetCookie()).toEqual([]);
      }
    }
    // still signed in, no second session, no account registered, 2FA untouched
    const me = await c.get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.data.account.twoFactorMethod).toBe("none");
    expect((await c.get("/api/auth/sessions")).body.data.sessions).toHaveLength(1);
    const registered = await server.app.db
      .selectFrom("users")
      .select("id")
      .where("username", "=", "csrf_user")
      .execute();
    expect(registered).toEqual([]);
  });

  test("every endpoint that takes a body answers a broken or wrongly shaped one with VALIDATION_ERROR", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const withBody = MUTATING.filter(([, , body]) => body !== undefined && Object.keys(body as object).length > 0);
    for (const [method, path, body] of withBody) {
      const broken = await c.request(method, path, "{", { headers: { "content-type": "application/json" } });
      expect([path, broken.status, broken.body.error.code]).toEqual([path, 400, "VALIDATION_ERROR"]);
      // every field given as an object instead of a string
      const wrongTypes = Object.fromEntries(Object.keys(body as object).map((k) => [k, { nested: true }]));
      const typed = await c.request(method, path, wrongTypes);
      expect([path, typed.status, typed.body.error.code]).toEqual([path, 422, "VALIDATION_ERROR"]);
      expect(Object.keys(typed.body.error.details.fieldErrors).length).toBeGreaterThan(0);
    }
    expect((await c.get("/api/auth/me")).status).toBe(200);
  });
});

describe("login", () => {
  test("sets session cookies and returns the account", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const res = await c.login(user.email!, user.password);
    expect(res.status).toBe(200);
    expect(res.body.data.account.username).toBe(user.username);
    const cookies = res.headers.getSetCookie();
    const access = cookies.find((l) => l.startsWith("auth_access_token="))!;
    const refresh = cookies.find((l) => l.startsWith("auth_refresh_token="))!;
    expect(access).toContain("HttpOnly");
    expect(access).toContain("Max-Age=900");
    expect(refresh).toContain("Max-Age=2592000");
    const me = await c.get("/api/auth/me");
    expect(me.body.data.account.email).toBe(user.email);
  });

  test("wrong password and unknown e-mail both give INVALID_CREDENTIALS", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    for (const [email, password] of [
      [user.email!, "wrong password"],
      ["nobody@example.test", "whatever123"],
    ]) {
      const res = await c.login(email!, password!);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_CREDENTIALS");
    }
  });

  test("bad input names the fields", async () => {
    const c = new TestClient(server.url);
    let res = await c.post("/api/auth/login", { email: 5 });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(res.body.error.details.fieldErrors)).toEqual(expect.arrayContaining(["email", "password"]));
    res = await c.post("/api/auth/login", "{not json", { headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    res = await c.post("/api/auth/login", { email: "a".repeat(300), password: "x" });
    expect(res.body.error.details.fieldErrors.email).toBeDefined();
  });

  test("me without a session is UNAUTHORIZED; logout ends the session", async () => {
    const anon = new TestClient(server.url);
    const res = await anon.get("/api/auth/me");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");

    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const stolen = new Map(c.cookies);
    expect((await c.post("/api/auth/logout")).status).toBe(200);
    expect(c.cookies.has("auth_access_token")).toBe(false);
    const replay = new TestClient(server.url);
    for (const [k, v] of stolen) replay.cookies.set(k, v);
    expect((await replay.get("/api/auth/me")).status).toBe(401);
  });

  test("an expired access token is renewed from the refresh token; a replayed old refresh token revokes", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const firstRefresh = c.cookies.get("auth_refresh_token")!;
    server.clock.advance(16 * 60_000);
    c.cookies.delete("auth_access_token"); // the browser drops it at Max-Age
    const me = await c.get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(c.cookies.get("auth_refresh_token")).not.toBe(firstRefresh);
    server.clock.advance(60_000);
    const thief = new TestClient(server.url);
    thief.cookies.set("auth_refresh_token", firstRefresh);
    expect((await thief.get("/api/auth/me")).status).toBe(401);
    // the theft revoked the whole session, so the owner is signed out too
    server.clock.advance(16 * 60_000);
    c.cookies.delete("auth_access_token");
    expect((await c.get("/api/auth/me")).status).toBe(401);
  });

  test("a thief who renewed a copied refresh token several times is still caught when the owner's old token returns", async () => {
    const user = await makeUser(server.app);
    const owner = new TestClient(server.url);
    await owner.login(user.email!, user.password);
    const thief = new TestClient(server.url);
    thief.cookies.set("auth_refresh_token", owner.cookies.get("auth_refresh_token")!);
    for (let i = 0; i < 2; i++) {
      server.clock.advance(16 * 60_000);
      thief.cookies.delete("auth_access_token");
      expect((await thief.get("/api/auth/me")).status).toBe(200);
    }
    // the owner's token is now two rotations old: refused, and the session ends for both
    server.clock.advance(16 * 60_000);
    owner.cookies.delete("auth_access_token");
    expect((await owner.get("/api/auth/me")).status).toBe(401);
    expect((await thief.get("/api/auth/me")).status).toBe(401);
    // racing requests of one client within the grace window are not mistaken for theft
    const racer = new TestClient(server.url);
    await racer.login(user.email!, user.password);
    const before = racer.cookies.get("auth_refresh_token")!;
    server.clock.advance(16 * 60_000);
    racer.cookies.delete("auth_access_token");
    expect((await racer.get("/api/auth/me")).status).toBe(200);
    const late = new TestClient(server.url);
    late.cookies.set("auth_refresh_token", before);
    expect((await late.get("/api/auth/me")).status).toBe(200);
    expect((await racer.get("/api/auth/me")).status).toBe(200);
  });

  test("more bad input: no body, wrong twoFactorCode type, oversize password; a bot account cannot log in", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const noBody = await c.request("POST", "/api/auth/login");
    expect(noBody.status).toBe(422);
    expect(noBody.body.error.code).toBe("VALIDATION_ERROR");
    const code = await c.post("/api/auth/login", { email: user.email, password: user.password, twoFactorCode: 123456 });
    expect(code.status).toBe(422);
    expect(Object.keys(code.body.error.details.fieldErrors)).toEqual(["twoFactorCode"]);
    const longCode = await c.post("/api/auth/login", {
      email: user.email,
      password: user.password,
      twoFactorCode: "1".repeat(33),
    });
    expect(longCode.status).toBe(422);
    expect(longCode.body.error.details.fieldErrors.twoFactorCode).toBeDefined();
    const longPw = await c.post("/api/auth/login", { email: user.email, password: "x".repeat(129) });
    expect(longPw.status).toBe(422);
    expect(longPw.body.error.details.fieldErrors.password).toBeDefined();
    const empty = await c.post("/api/auth/login", { email: "", password: "" });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.error.details.fieldErrors).sort()).toEqual(["email", "password"]);
    // none of that signed anyone in
    expect(c.cookies.has("auth_access_token")).toBe(false);
    // accounts that are not people cannot sign in with a password, whatever is tried
    const bot = await makeUser(server.app, { username: `pw${Date.now() % 100000}_bot`, isBot: true });
    const botLogin = await c.login(bot.email!, bot.password);
    expect(botLogin.status).toBe(401);
    expect(botLogin.body.error.code).toBe("INVALID_CREDENTIALS");
    // e-mail is matched case-insensitively and trimmed
    expect((await c.login(` ${user.email!.toUpperCase()} `, user.password)).status).toBe(200);
  });

  test("logout needs a session and the CSRF header", async () => {
    const anon = new TestClient(server.url);
    const res = await anon.post("/api/auth/logout");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const noCsrf = await c.post("/api/auth/logout", {}, { csrf: false });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe("CSRF_TOKEN_INVALID");
    expect((await c.get("/api/auth/me")).status).toBe(200);
  });

  test("dead tokens: a forged access token, an expired refresh token, a refresh token after logout", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const access = c.cookies.get("auth_access_token")!;
    const refresh = c.cookies.get("auth_refresh_token")!;

    // the session id is right but the secret is not: refused, and no renewal is offered
    const forged = new TestClient(server.url);
    forged.cookies.set("auth_access_token", `${access.split(".")[0]}.${"A".repeat(32)}`);
    const f = await forged.get("/api/auth/me");
    expect(f.status).toBe(401);
    expect(f.body.error.code).toBe("UNAUTHORIZED");
    expect(f.headers.getSetCookie().filter((l) => l.startsWith("auth_"))).toEqual([]);
    for (const junk of ["", ".", "no-dot", "x".repeat(500), "%zz"]) {
      const j = new TestClient(server.url);
      j.cookies.set("auth_access_token", junk);
      j.cookies.set("auth_refresh_token", junk);
      expect((await j.get("/api/auth/me")).status).toBe(401);
    }

    // past the refresh lifetime (30 days) nothing renews: sign in again
    server.clock.advance(30 * 86400_000 + 1000);
    const late = new TestClient(server.url);
    late.cookies.set("auth_access_token", access);
    late.cookies.set("auth_refresh_token", refresh);
    const expired = await late.get("/api/auth/me");
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("UNAUTHORIZED");
    expect(expired.headers.getSetCookie().filter((l) => l.startsWith("auth_"))).toEqual([]);

    // a refresh token of a session that logged out does not bring it back
    const d = new TestClient(server.url);
    await d.login(user.email!, user.password);
    const kept = d.cookies.get("auth_refresh_token")!;
    await d.post("/api/auth/logout");
    server.clock.advance(16 * 60_000);
    const replay = new TestClient(server.url);
    replay.cookies.set("auth_refresh_token", kept);
    expect((await replay.get("/api/auth/me")).status).toBe(401);
  });

  test("unknown API routes answer the envelope", async () => {
    const res = await new TestClient(server.url).get("/api/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});
