import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { startTestSmtp } from "../../testing/smtp";

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let server: TestServer;
/** refuses sign-in until the address is confirmed */
let strict: TestServer;
beforeAll(async () => {
  // no STARTTLS: the instance verifies certificates, and this one is self-signed
  smtp = await startTestSmtp({ user: "relay", password: "relay-pass", starttls: false });
  const mailConfig = {
    "smtp.host": "127.0.0.1",
    "smtp.port": smtp.port,
    "smtp.user": "relay",
    "smtp.password": "relay-pass",
    "smtp.from": "Social <no-reply@social.test>",
  };
  server = await startTestServer(mailConfig);
  strict = await startTestServer({ ...mailConfig, "auth.requireVerifiedEmail": true });
});
afterAll(async () => {
  await server.stop();
  await strict.stop();
  await smtp.stop();
});

let n = 0;
/** Signs up a new person on ON (the client `c` signs in after, where the instance lets it). */
async function register(on: TestServer = server) {
  n++;
  const input = { email: `verify${n}@example.test`, username: `verify_${n}`, password: "long enough pw" };
  const c = new TestClient(on.url);
  const res = await c.post("/api/auth/register", input);
  expect(res.status).toBe(200);
  const mail = await nextMailTo(input.email);
  if (on === server) expect((await c.login(input.email, input.password)).status).toBe(200);
  return { c, input, mail };
}

async function nextMailTo(to: string, skip = 0) {
  // a mail goes out from the job queue at its next poll, the first after loading the mail
  // module: a bound for a mail that never comes, not a judgement of how soon it does
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const mails = smtp.received.filter((m) => m.to.includes(to));
    if (mails.length > skip) {
      const m = mails[mails.length - 1]!;
      return { ...m, code: m.text.match(/code is (\d{6})/)?.[1], token: m.text.match(/token=([A-Za-z0-9_-]+)/)?.[1] };
    }
    await Bun.sleep(20);
  }
  throw new Error(`no mail to ${to}`);
}

describe("e-mail verification over SMTP", () => {
  test("registration mails a code and a link through the SMTP server", async () => {
    const { mail, input } = await register();
    expect(mail.auth).toBe("PLAIN relay");
    expect(mail.from).toBe("no-reply@social.test");
    expect(mail.subject).toBe("Confirm your e-mail address");
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(`${server.app.config.baseUrl}/auth/verify-email?token=`);
    expect(mail.to).toEqual([input.email]);
  });

  test("the code confirms the address of the signed-in person", async () => {
    const { c, mail } = await register();
    expect((await c.get("/api/auth/me")).body.data.account.emailVerified).toBe(false);
    const res = await c.post("/api/auth/email/verify", { code: mail.code });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ emailVerified: true });
    expect((await c.get("/api/auth/me")).body.data.account.emailVerified).toBe(true);
    // confirming again is harmless
    expect((await c.post("/api/auth/email/verify", { code: mail.code })).status).toBe(200);
  });

  test("EMAIL_NOT_VERIFIED refuses login until the link is opened", async () => {
    const { c, input, mail } = await register(strict);
    let login = await c.login(input.email, input.password);
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe("EMAIL_NOT_VERIFIED");
    const res = await c.post("/api/auth/email/verify", { token: mail.token });
    expect(res.status).toBe(200);
    login = await c.login(input.email, input.password);
    expect(login.status).toBe(200);
    expect((await c.get("/api/auth/me")).body.data.account.emailVerified).toBe(true);
  });

  test("wrong codes count; after five the code is dead", async () => {
    const { c, mail } = await register();
    const wrong = mail.code === "000000" ? "111111" : "000000";
    const first = await c.post("/api/auth/email/verify", { code: wrong });
    expect(first.status).toBe(400);
    expect(first.body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { code: ["is wrong"] } },
    });
    for (let i = 0; i < 4; i++) await c.post("/api/auth/email/verify", { code: wrong });
    const dead = await c.post("/api/auth/email/verify", { code: mail.code });
    expect(dead.status).toBe(400);
    expect(dead.body.error.details.fieldErrors.code[0]).toContain("has expired or was used up");
  });

  test("the link token works without a session, once", async () => {
    const { input, mail } = await register();
    const anon = new TestClient(server.url);
    const res = await anon.post("/api/auth/email/verify", { token: mail.token });
    expect(res.status).toBe(200);
    expect((await anon.login(input.email, input.password)).status).toBe(200);
    const replay = await anon.post("/api/auth/email/verify", { token: mail.token });
    expect(replay.status).toBe(400);
    expect(replay.body.error.details.fieldErrors.token).toEqual(["is invalid, used or expired"]);
    const bogus = await anon.post("/api/auth/email/verify", { token: "x".repeat(43) });
    expect(bogus.body.error.details.fieldErrors.token).toBeDefined();
  });

  test("codes expire after a day", async () => {
    const { c, mail } = await register();
    server.clock.advance(24 * 3600_000 + 1000);
    const res = await c.post("/api/auth/email/verify", { code: mail.code });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.code[0]).toContain("has expired");
  });

  test("resend is throttled to one a minute and replaces the old code", async () => {
    const { c, input, mail } = await register();
    const soon = await c.post("/api/auth/email/resend");
    expect(soon.status).toBe(429);
    expect(soon.body.error.code).toBe("RATE_LIMITED");
    expect(Number(soon.headers.get("retry-after"))).toBeGreaterThan(0);
    server.clock.advance(61_000);
    const again = await c.post("/api/auth/email/resend");
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ sent: true });
    const second = await nextMailTo(input.email, 1);
    expect(second.code).toMatch(/^\d{6}$/);
    if (second.code !== mail.code) {
      const old = await c.post("/api/auth/email/verify", { code: mail.code });
      expect(old.status).toBe(400);
    }
    expect((await c.post("/api/auth/email/verify", { code: second.code })).status).toBe(200);
    const after = await c.post("/api/auth/email/resend");
    expect(after.body.data).toEqual({ sent: false });
  });

  test("bad input: nothing given, code while signed out, wrong types, oversize", async () => {
    const anon = new TestClient(server.url);
    let res = await anon.post("/api/auth/email/verify", {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.code).toBeDefined();
    res = await anon.post("/api/auth/email/verify", { code: "123456" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
    res = await anon.post("/api/auth/email/verify", { code: 123456 });
    expect(res.status).toBe(422);
    res = await anon.post("/api/auth/email/verify", { token: "t".repeat(201) });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.token).toBeDefined();
    res = await anon.post("/api/auth/email/resend");
    expect(res.status).toBe(401);
    res = await anon.post("/api/auth/email/verify", { code: "123456" }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});
