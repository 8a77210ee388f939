import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";
import { captchaAnswerForTests, CAPTCHA_TTL_MS } from "../../domain/auth/captcha";
import { capturingLog, lastMail } from "../../testing/auth";

let server: TestServer;
let closed: TestServer;
const capture = capturingLog();
beforeAll(async () => {
  server = await startTestServer({ registration: "captcha" }, { log: capture.log });
  closed = await startTestServer({ registration: "closed" });
});
afterAll(async () => {
  await server.stop();
  await closed.stop();
});

let n = 0;
const fresh = () => {
  n++;
  return { email: `reg${n}@example.test`, username: `reg_user${n}`, password: "long enough pw" };
};

async function solvedCaptcha(c: TestClient) {
  const res = await c.get("/api/auth/captcha");
  const answer = await captchaAnswerForTests(server.app.db, res.body.data.captchaId);
  return { captchaId: res.body.data.captchaId as string, captchaAnswer: answer! };
}

describe("captcha", () => {
  test("GET /api/auth/captcha gives an id and a real PNG image", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/captcha");
    expect(res.status).toBe(200);
    expect(res.body.data.captchaId).toMatch(/^[a-z0-9]{20,}$/);
    expect(res.body.data.image).toStartWith("data:image/png;base64,");
    const png = Buffer.from(res.body.data.image.split(",")[1], "base64");
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe("png");
    expect(meta.width).toBe(200);
    expect(meta.height).toBe(70);
    expect(await captchaAnswerForTests(server.app.db, res.body.data.captchaId)).toMatch(/^[a-z0-9]{5}$/);
    const csrf = await c.get("/api/auth/csrf");
    expect(csrf.body.data.captchaRequired).toBe(true);
  });

  test("registration without a captcha is CAPTCHA_REQUIRED", async () => {
    const c = new TestClient(server.url);
    const res = await c.post("/api/auth/register", fresh());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("CAPTCHA_REQUIRED");
    const half = await c.post("/api/auth/register", { ...fresh(), captchaId: "abc" });
    expect(half.body.error.code).toBe("CAPTCHA_REQUIRED");
  });

  test("a wrong answer is CAPTCHA_FAILED and uses the captcha up", async () => {
    const c = new TestClient(server.url);
    const { captchaId, captchaAnswer } = await solvedCaptcha(c);
    const wrong = await c.post("/api/auth/register", { ...fresh(), captchaId, captchaAnswer: "zzzzz" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("CAPTCHA_FAILED");
    const retry = await c.post("/api/auth/register", { ...fresh(), captchaId, captchaAnswer });
    expect(retry.body.error.code).toBe("CAPTCHA_FAILED");
    const unknown = await c.post("/api/auth/register", { ...fresh(), captchaId: "nosuchcaptcha", captchaAnswer });
    expect(unknown.body.error.code).toBe("CAPTCHA_FAILED");
  });

  test("an expired captcha fails", async () => {
    const c = new TestClient(server.url);
    const solved = await solvedCaptcha(c);
    server.clock.advance(CAPTCHA_TTL_MS + 1000);
    const res = await c.post("/api/auth/register", { ...fresh(), ...solved });
    expect(res.body.error.code).toBe("CAPTCHA_FAILED");
  });

  test("a correct answer (any case) registers, signs in and mails a confirmation", async () => {
    const c = new TestClient(server.url);
    const solved = await solvedCaptcha(c);
    const input = { ...fresh(), displayName: "New Person" };
    const res = await c.post("/api/auth/register", {
      ...input,
      ...solved,
      captchaAnswer: ` ${solved.captchaAnswer.toUpperCase()} `,
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.account).toMatchObject({
      username: input.username,
      email: input.email,
      displayName: "New Person",
      emailVerified: false,
    });
    expect(c.cookies.get("auth_access_token")).toBeTruthy();
    expect(c.cookies.get("auth_refresh_token")).toBeTruthy();
    expect(c.cookies.get("device_id")).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const me = await c.get("/api/auth/me");
    expect(me.body.data.account.username).toBe(input.username);
    const mail = lastMail(capture, input.email, "email-verification");
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.link).toContain("/auth/verify-email?token=");
    // the same captcha cannot register a second account
    const again = await c.post("/api/auth/register", { ...fresh(), ...solved });
    expect(again.body.error.code).toBe("CAPTCHA_FAILED");
  });
});

describe("register input", () => {
  test("missing fields, wrong types and oversize strings are 422 with fieldErrors", async () => {
    const c = new TestClient(server.url);
    let res = await c.post("/api/auth/register", { email: "a@b.cd" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(res.body.error.details.fieldErrors)).toEqual(expect.arrayContaining(["username", "password"]));
    res = await c.post("/api/auth/register", { ...fresh(), username: 42 });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.username).toBeDefined();
    res = await c.post("/api/auth/register", { ...fresh(), displayName: "x".repeat(65) });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.displayName).toBeDefined();
    res = await c.post("/api/auth/register", "{not json", { headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });

  test("domain rules: bad e-mail, short password, bad or taken or reserved username", async () => {
    const c = new TestClient(server.url);
    const taken = await makeUser(server.app);
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ email: "not-an-email" }, "email", "must be a valid e-mail address"],
      [{ password: "short" }, "password", "must be at least 8 characters"],
      [{ username: "has space" }, "username", "must be 3 to 32 characters of letters, digits and _"],
      [{ username: "sneaky_bot" }, "username", "only bots have usernames ending with _bot"],
      [{ username: taken.username.toUpperCase() }, "username", "is taken"],
      [{ email: taken.email!.toUpperCase() }, "email", "is already registered"],
      [{ username: "System" }, "username", "is reserved"],
    ];
    for (const [patch, field, message] of cases) {
      const res = await c.post("/api/auth/register", { ...fresh(), ...(await solvedCaptcha(c)), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors[field]).toContain(message);
    }
  });

  test("two racing sign-ups for one address: one account, the other a field error naming the e-mail", async () => {
    const [a, b] = [new TestClient(server.url), new TestClient(server.url)];
    const email = `race${Date.now()}@example.test`;
    const [first, second] = await Promise.all([
      a.post("/api/auth/register", { ...fresh(), email, ...(await solvedCaptcha(a)) }),
      b.post("/api/auth/register", { ...fresh(), email, ...(await solvedCaptcha(b)) }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
    const loser = first.status === 400 ? first : second;
    expect(loser.body.error.details.fieldErrors).toEqual({ email: ["is already registered"] });
    const rows = await server.app.db.selectFrom("users").select("id").where("email", "=", email).execute();
    expect(rows).toHaveLength(1);
  });

  test("wrong CSRF is refused before anything happens", async () => {
    const c = new TestClient(server.url);
    const res = await c.post("/api/auth/register", fresh(), { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
  });
});

describe("closed registration", () => {
  test("is FORBIDDEN even with every field right", async () => {
    const c = new TestClient(closed.url);
    const res = await c.post("/api/auth/register", fresh());
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    const count = await closed.app.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });
});
