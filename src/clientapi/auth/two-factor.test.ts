import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser, signedInClient } from "../../testing/fixtures";
import { capturingLog, lastMail, totpAt } from "../../testing/auth";

let server: TestServer;
const capture = capturingLog();
const delivered: Array<{ userId: number; code: string }> = [];
beforeAll(async () => {
  server = await startTestServer({}, { log: capture.log });
  server.app.hooks.on("auth:deliver-code", (p) => {
    delivered.push(p);
  });
});
afterAll(() => server.stop());

async function withTotp() {
  const { user, client } = await signedInClient(server);
  const setup = await client.post("/api/auth/2fa/totp/setup");
  const secret = setup.body.data.secret as string;
  const enable = await client.post("/api/auth/2fa/totp/enable", { code: await totpAt(secret, server.clock) });
  expect(enable.status).toBe(200);
  return { user, client, secret, recoveryCodes: enable.body.data.recoveryCodes as string[] };
}

describe("TOTP", () => {
  test("setup gives a secret and an otpauth URL; enable needs a right code and returns recovery codes", async () => {
    const { user, client } = await signedInClient(server);
    const early = await client.post("/api/auth/2fa/totp/enable", { code: "123456" });
    expect(early.status).toBe(400);
    expect(early.body.error.details.fieldErrors.code).toBeDefined();
    const setup = await client.post("/api/auth/2fa/totp/setup");
    expect(setup.status).toBe(200);
    const { secret, otpauthUrl } = setup.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(otpauthUrl).toStartWith("otpauth://totp/");
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(decodeURIComponent(otpauthUrl)).toContain(user.username);
    const current = await totpAt(secret, server.clock);
    const wrong = await client.post("/api/auth/2fa/totp/enable", { code: current === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
    const res = await client.post("/api/auth/2fa/totp/enable", { code: current });
    expect(res.status).toBe(200);
    expect(res.body.data.twoFactorMethod).toBe("totp");
    expect(res.body.data.recoveryCodes).toHaveLength(10);
    expect(new Set(res.body.data.recoveryCodes).size).toBe(10);
    for (const code of res.body.data.recoveryCodes) expect(code).toMatch(/^[0-9a-f]{5}-[0-9a-f]{5}$/);
    expect((await client.get("/api/auth/me")).body.data.account.twoFactorMethod).toBe("totp");
    const row = await server.app.db
      .selectFrom("users")
      .select("recovery_codes")
      .where("id", "=", user.id)
      .executeTakeFirstOrThrow();
    for (const code of res.body.data.recoveryCodes) expect(row.recovery_codes).not.toContain(code);
  });

  test("login follows the state table: REQUIRED, INVALID_CODE, then signed in", async () => {
    const { user, secret } = await withTotp();
    const c = new TestClient(server.url);
    const none = await c.login(user.email!, user.password);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("TWO_FACTOR_REQUIRED");
    expect(c.cookies.has("auth_access_token")).toBe(false);
    const code = await totpAt(secret, server.clock, 1);
    const wrong = await c.login(user.email!, user.password, code === "999999" ? "999998" : "999999");
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
    // a right code with a wrong password is still INVALID_CREDENTIALS
    expect((await c.login(user.email!, "wrong password!", code)).body.error.code).toBe("INVALID_CREDENTIALS");
    server.clock.advance(30_000);
    const ok = await c.login(user.email!, user.password, code);
    expect(ok.status).toBe(200);
    expect(ok.body.data.account.username).toBe(user.username);
    // the same code cannot be used twice
    const replay = await new TestClient(server.url).login(user.email!, user.password, code);
    expect(replay.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
  });

  test("re-enrolling while protected needs the password", async () => {
    const { user, client, recoveryCodes } = await withTotp();
    const setup = await client.post("/api/auth/2fa/totp/setup");
    const code = await totpAt(setup.body.data.secret, server.clock);
    const without = await client.post("/api/auth/2fa/totp/enable", { code });
    expect(without.status).toBe(400);
    expect(without.body.error.details.fieldErrors.password).toEqual(["is required while two-factor protection is on"]);
    const wrong = await client.post("/api/auth/2fa/totp/enable", { code, password: "not my password" });
    expect(wrong.body.error.details.fieldErrors).toEqual({ password: ["is incorrect"] });
    // the old recovery codes still work after the refused attempts
    expect((await new TestClient(server.url).login(user.email!, user.password, recoveryCodes[0])).status).toBe(200);
    const res = await client.post("/api/auth/2fa/totp/enable", { code, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.recoveryCodes).toHaveLength(10);
    expect((await new TestClient(server.url).login(user.email!, user.password, recoveryCodes[1])).body.error.code).toBe(
      "TWO_FACTOR_INVALID_CODE",
    );
  });

  test("recovery codes sign in once each", async () => {
    const { user, recoveryCodes } = await withTotp();
    const c = new TestClient(server.url);
    expect((await c.login(user.email!, user.password, recoveryCodes[3]!.toUpperCase())).status).toBe(200);
    const again = await new TestClient(server.url).login(user.email!, user.password, recoveryCodes[3]);
    expect(again.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
  });

  test("disable needs the password or a code", async () => {
    const { user, client, secret } = await withTotp();
    const nothing = await client.post("/api/auth/2fa/disable", {});
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.details.fieldErrors.password).toBeDefined();
    const wrong = await client.post("/api/auth/2fa/disable", { password: "not my password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fieldErrors).toEqual({ password: ["is incorrect"] });
    const badCode = await client.post("/api/auth/2fa/disable", { code: "12" });
    expect(badCode.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
    server.clock.advance(30_000);
    const res = await client.post("/api/auth/2fa/disable", { code: await totpAt(secret, server.clock) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ twoFactorMethod: "none" });
    expect((await new TestClient(server.url).login(user.email!, user.password)).status).toBe(200);
  });

  test("guessing is limited per account", async () => {
    const { user, secret } = await withTotp();
    const c = new TestClient(server.url);
    const right = await totpAt(secret, server.clock, 1);
    const wrong = right === "000000" ? "000001" : "000000";
    for (let i = 0; i < 10; i++)
      expect((await c.login(user.email!, user.password, wrong)).body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
    const blocked = await c.login(user.email!, user.password, right);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("RATE_LIMITED");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("e-mail and messenger codes", () => {
  test("method email: TWO_FACTOR_EMAIL_REQUIRED mails a code that signs in once", async () => {
    const { user, client } = await signedInClient(server);
    const res = await client.post("/api/auth/2fa/method", { method: "email", password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.twoFactorMethod).toBe("email");
    expect(res.body.data.recoveryCodes).toHaveLength(10);
    const c = new TestClient(server.url);
    const first = await c.login(user.email!, user.password);
    expect(first.status).toBe(401);
    expect(first.body.error.code).toBe("TWO_FACTOR_EMAIL_REQUIRED");
    const code = lastMail(capture, user.email!, "login-code").code as string;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = await c.login(user.email!, user.password, code === "000000" ? "000001" : "000000");
    expect(wrong.body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
    expect((await c.login(user.email!, user.password, code)).status).toBe(200);
    expect((await new TestClient(server.url).login(user.email!, user.password, code)).body.error.code).toBe(
      "TWO_FACTOR_INVALID_CODE",
    );
  });

  test("e-mailed codes expire after ten minutes", async () => {
    const { user, client } = await signedInClient(server);
    await client.post("/api/auth/2fa/method", { method: "email", password: user.password });
    const c = new TestClient(server.url);
    await c.login(user.email!, user.password);
    const code = lastMail(capture, user.email!, "login-code").code;
    server.clock.advance(10 * 60_000 + 1000);
    expect((await c.login(user.email!, user.password, code)).body.error.code).toBe("TWO_FACTOR_INVALID_CODE");
  });

  test("method messenger: TWO_FACTOR_TELEGRAM_REQUIRED, the code goes out through the deliver-code hook", async () => {
    const { user, client } = await signedInClient(server);
    const set = await client.post("/api/auth/2fa/method", { method: "messenger", password: user.password });
    expect(set.status).toBe(200);
    const c = new TestClient(server.url);
    const first = await c.login(user.email!, user.password);
    expect(first.status).toBe(401);
    expect(first.body.error.code).toBe("TWO_FACTOR_TELEGRAM_REQUIRED");
    const sent = delivered.filter((d) => d.userId === user.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.code).toMatch(/^\d{6}$/);
    const system = await server.app.db.selectFrom("users").selectAll().where("is_system", "=", 1).execute();
    expect(system).toHaveLength(1);
    expect(system[0]!.username).toBe("system");
    // a second attempt within a minute does not send another code
    await c.login(user.email!, user.password);
    expect(delivered.filter((d) => d.userId === user.id)).toHaveLength(1);
    expect((await c.login(user.email!, user.password, sent[0]!.code)).status).toBe(200);
  });

  test("method rules and bad input", async () => {
    const unverified = await makeUser(server.app, { verified: false });
    const u = new TestClient(server.url);
    await u.login(unverified.email!, unverified.password);
    const email = await u.post("/api/auth/2fa/method", { method: "email", password: unverified.password });
    expect(email.status).toBe(400);
    expect(email.body.error.details.fieldErrors.method).toEqual(["confirm your e-mail address first"]);
    const totp = await u.post("/api/auth/2fa/method", { method: "totp", password: unverified.password });
    expect(totp.body.error.details.fieldErrors.method[0]).toContain("set up an authenticator first");
    const wrongPw = await u.post("/api/auth/2fa/method", { method: "messenger", password: "not the password" });
    expect(wrongPw.body.error.details.fieldErrors).toEqual({ password: ["is incorrect"] });
    expect((await u.get("/api/auth/me")).body.data.account.twoFactorMethod).toBe("none");
    expect((await u.post("/api/auth/2fa/method", { method: "sms", password: "x" })).status).toBe(422);
    expect((await u.post("/api/auth/2fa/method", {})).status).toBe(422);
    expect((await u.post("/api/auth/2fa/totp/enable", { code: 123456 })).status).toBe(422);
    expect((await u.post("/api/auth/2fa/totp/enable", { code: "1".repeat(33) })).status).toBe(422);
    const anon = new TestClient(server.url);
    expect((await anon.post("/api/auth/2fa/totp/setup")).status).toBe(401);
    expect((await anon.post("/api/auth/2fa/disable", { password: "x" })).status).toBe(401);
    expect((await u.post("/api/auth/2fa/totp/setup", {}, { csrf: false })).body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});
