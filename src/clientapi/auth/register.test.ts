import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";
import { captchaAnswerForTests, CAPTCHA_TTL_MS, numberInWords } from "../../domain/auth/captcha";
import { capturingLog, lastMail } from "../../testing/auth";
import { textFor } from "../../domain/users/language";

let server: TestServer;
let closed: TestServer;
const english = await textFor("en");
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

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 150 && !check(); i++) await Bun.sleep(20);
  expect(check()).toBe(true);
};

/** What a person reading the question types: the number it spells out. */
function numberFromWords(question: string): number {
  const words = question.replace(/^Write this number in digits: /, "").replace(/\.$/, "");
  const n = [...Array(1000).keys()].find((i) => i > 0 && numberInWords(i, english) === words);
  if (n === undefined) throw new Error(`not a number in words: ${words}`);
  return n;
}

async function solvedCaptcha(c: TestClient) {
  const res = await c.get("/api/auth/captcha");
  const answer = await captchaAnswerForTests(server.app.db, res.body.data.captchaId);
  return { captchaId: res.body.data.captchaId as string, captchaAnswer: answer! };
}

describe("captcha", () => {
  test("GET /api/auth/captcha gives an id, a real PNG image and a text question", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/captcha");
    expect(res.status).toBe(200);
    expect(res.body.data.captchaId).toMatch(/^[a-z0-9]{20,}$/);
    expect(res.body.data.image).toStartWith("data:image/png;base64,");
    const png = Buffer.from(res.body.data.image.split(",")[1], "base64");
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe("png");
    // twice the 200×70 it is shown at, for dense screens
    expect(meta.width).toBe(400);
    expect(meta.height).toBe(140);
    expect(await captchaAnswerForTests(server.app.db, res.body.data.captchaId)).toMatch(/^[a-z0-9]{5}$/);
    expect(res.body.data.question).toMatch(/^Write this number in digits: [a-z -]+\.$/);
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

  test("a correct answer (any case) registers and mails a confirmation; the person then signs in", async () => {
    const c = new TestClient(server.url);
    const solved = await solvedCaptcha(c);
    const input = { ...fresh(), displayName: "New Person" };
    const res = await c.post("/api/auth/register", {
      ...input,
      ...solved,
      captchaAnswer: ` ${solved.captchaAnswer.toUpperCase()} `,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { sent: true } });
    // registering signs nobody in: the answer must not differ for an address that has an account
    expect(c.cookies.get("auth_access_token")).toBeUndefined();
    const login = await c.login(input.email, input.password);
    expect(login.status).toBe(200);
    expect(login.body.data.account).toMatchObject({
      username: input.username,
      email: input.email,
      displayName: "New Person",
      emailVerified: false,
    });
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
      [{ username: "System" }, "username", "is reserved"],
    ];
    for (const [patch, field, message] of cases) {
      const res = await c.post("/api/auth/register", { ...fresh(), ...(await solvedCaptcha(c)), ...patch });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors[field]).toContain(message);
    }
  });

  test("two racing sign-ups for one address: one account, both answered alike, the loser's a mail", async () => {
    const [a, b] = [new TestClient(server.url), new TestClient(server.url)];
    const email = `race${Date.now()}@example.test`;
    const [first, second] = await Promise.all([
      a.post("/api/auth/register", { ...fresh(), email, ...(await solvedCaptcha(a)) }),
      b.post("/api/auth/register", { ...fresh(), email, ...(await solvedCaptcha(b)) }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body).toEqual(second.body);
    const rows = await server.app.db.selectFrom("users").select("id").where("email", "=", email).execute();
    expect(rows).toHaveLength(1);
    await waitFor(() => capture.mails(email).some((m) => m.kind === "registration-attempt"));
    expect(capture.mails(email).filter((m) => m.kind === "email-verification")).toHaveLength(1);
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

describe("the captcha's text alternative", () => {
  test("the question's answer passes instead of the picture's code", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/captcha");
    const answer = String(numberFromWords(res.body.data.question));
    const input = fresh();
    const reg = await c.post("/api/auth/register", {
      ...input,
      captchaId: res.body.data.captchaId,
      captchaAnswer: answer,
    });
    expect(reg.status).toBe(200);
    expect((await c.login(input.email, input.password)).status).toBe(200);
  });

  test("a wrong answer to the question fails like a wrong code", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/captcha");
    const wrong = String((numberFromWords(res.body.data.question) % 999) + 1);
    const reg = await c.post("/api/auth/register", {
      ...fresh(),
      captchaId: res.body.data.captchaId,
      captchaAnswer: wrong,
    });
    expect(reg.body.error.code).toBe("CAPTCHA_FAILED");
  });

  test("numbers read as people write them, in English and in Russian", async () => {
    expect(numberInWords(101, english)).toBe("one hundred and one");
    expect(numberInWords(342, english)).toBe("three hundred and forty-two");
    expect(numberInWords(519, english)).toBe("five hundred and nineteen");
    expect(numberInWords(700, english)).toBe("seven hundred");
    expect(numberInWords(990, english)).toBe("nine hundred and ninety");
    for (let n = 101; n < 1000; n++)
      expect(numberFromWords(`Write this number in digits: ${numberInWords(n, english)}.`)).toBe(n);
    const russian = await textFor("ru");
    expect(numberInWords(101, russian)).toBe("сто один");
    expect(numberInWords(342, russian)).toBe("триста сорок два");
    expect(numberInWords(519, russian)).toBe("пятьсот девятнадцать");
    expect(numberInWords(700, russian)).toBe("семьсот");
    expect(numberInWords(990, russian)).toBe("девятьсот девяносто");
    const spelt = new Set(Array.from({ length: 899 }, (_, i) => numberInWords(i + 101, russian)));
    expect(spelt.size).toBe(899);
  });

  test("the question comes in the language the request asks for", async () => {
    const c = new TestClient(server.url);
    const res = await c.get("/api/auth/captcha", { headers: { "accept-language": "ru" } });
    expect(res.body.data.question).toMatch(/^Напишите это число цифрами: [а-я ]+\.$/);
  });
});

describe("an address that already has an account", () => {
  test("gets the same answer as a new one, a mail instead of an account, and no session", async () => {
    const known = await makeUser(server.app);
    const c = new TestClient(server.url);
    const unknownInput = fresh();
    const forNew = await c.post("/api/auth/register", { ...unknownInput, ...(await solvedCaptcha(c)) });
    const forKnown = await c.post("/api/auth/register", {
      ...fresh(),
      email: known.email!.toUpperCase(),
      ...(await solvedCaptcha(c)),
    });
    expect(forKnown.status).toBe(forNew.status);
    expect(forKnown.body).toEqual(forNew.body);
    expect([...forKnown.headers.keys()].sort()).toEqual([...forNew.headers.keys()].sort());
    expect(c.cookies.get("auth_access_token")).toBeUndefined();
    // the owner hears of it; nothing about the account changed
    await waitFor(() => capture.mails(known.email!).some((m) => m.kind === "registration-attempt"));
    const mail = lastMail(capture, known.email!, "registration-attempt");
    expect(mail.subject).toBe("Someone tried to sign up with your address");
    expect(capture.mails(known.email!).filter((m) => m.kind === "email-verification")).toHaveLength(0);
    const rows = await server.app.db.selectFrom("users").select("id").where("email", "=", known.email!).execute();
    expect(rows).toHaveLength(1);
    expect((await new TestClient(server.url).login(known.email!, known.password)).status).toBe(200);
  });

  test("takes as long as a new address: the password is hashed either way", async () => {
    const known = await makeUser(server.app);
    const c = new TestClient(server.url);
    const timed = async (email: string) => {
      const body = { ...fresh(), email, ...(await solvedCaptcha(c)) };
      const start = performance.now();
      const res = await c.post("/api/auth/register", body);
      expect(res.status).toBe(200);
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const forNew: number[] = [];
    const forKnown: number[] = [];
    for (let i = 0; i < 5; i++) {
      forNew.push(await timed(`timing${i}_${Date.now()}@example.test`));
      forKnown.push(await timed(known.email!));
    }
    // a known address skipping the hash answers many times faster; the bound leaves room for a busy machine
    expect(median(forKnown)).toBeGreaterThan(median(forNew) / 4);
  });
});
