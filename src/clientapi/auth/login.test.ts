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
    expect(res.body).toEqual({ success: false, error: { code: "CSRF_TOKEN_INVALID", message: expect.any(String), details: [] } });
    await c.fetchCsrf();
    res = await c.post("/api/auth/login", { email: "a@b.cd", password: "x" }, { headers: { "x-csrf-token": c.csrf + "x" } });
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
    // a forged pair that matches but is not signed by this instance
    c.cookies.set("csrf_token", "forged.value");
    res = await c.post("/api/auth/login", { email: "a@b.cd", password: "x" }, { headers: { "x-csrf-token": "forged.value" } });
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
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
    for (const [email, password] of [[user.email!, "wrong password"], ["nobody@example.test", "whatever123"]]) {
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

  test("unknown API routes answer the envelope", async () => {
    const res = await new TestClient(server.url).get("/api/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});
