import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";
import { capturingLog, lastMail } from "../../testing/auth";

// Three servers: the per-second API limit, the login budget and the account lock need different settings.
let rps: TestServer;
let login: TestServer;
let lock: TestServer;
const lockLog = capturingLog();
beforeAll(async () => {
  rps = await startTestServer({ "limits.clientRps": 5, "limits.blockAfterRejections": 3, "limits.blockSeconds": 60 });
  login = await startTestServer({ "limits.loginPer10Min": 3 });
  lock = await startTestServer(
    { "limits.passwordFailuresPerAccount": 4, "limits.accountLockMinutes": 20 },
    { log: lockLog.log },
  );
});
afterAll(async () => {
  await rps.stop();
  await login.stop();
  await lock.stop();
});

describe("per-IP request rate", () => {
  test("over limits.clientRps → 429 RATE_LIMITED with Retry-After; hammering blocks the address", async () => {
    const c = new TestClient(rps.url);
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<TestClient["get"]>> | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await c.get("/api/auth/csrf");
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429, 429, 429, 429]);
    expect(limited!.body).toEqual({
      success: false,
      error: { code: "RATE_LIMITED", message: expect.any(String), details: [] },
    });
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    // a new second would normally reset the window, but the address is now blocked
    rps.clock.advance(2000);
    const blocked = await c.get("/api/auth/csrf");
    expect(blocked.status).toBe(429);
    const retry = Number(blocked.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(50);
    expect(retry).toBeLessThanOrEqual(60);
    // the health check is outside the Client API limits
    expect((await fetch(`${rps.url}/healthz`)).status).toBe(200);

    rps.clock.advance(61_000);
    expect((await c.get("/api/auth/csrf")).status).toBe(200);
  });
});

describe("login budget", () => {
  test("limits.loginPer10Min per IP, shared with password recovery", async () => {
    const user = await makeUser(login.app);
    const c = new TestClient(login.url);
    for (let i = 0; i < 3; i++)
      expect((await c.login(user.email!, "wrong password")).body.error.code).toBe("INVALID_CREDENTIALS");
    const limited = await c.login(user.email!, user.password);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(590);
    expect(retry).toBeLessThanOrEqual(600);
    const forgot = await c.post("/api/auth/password/forgot", { email: user.email });
    expect(forgot.status).toBe(429);
    expect(forgot.body.error.code).toBe("RATE_LIMITED");
    // other endpoints are not part of the login budget
    expect((await c.get("/api/auth/me")).body.error.code).toBe("UNAUTHORIZED");
    login.clock.advance(10 * 60_000 + 1000);
    expect((await c.login(user.email!, user.password)).status).toBe(200);
  });
});

describe("wrong passwords per account", () => {
  // each guess from a fresh client: to the account lock, addresses and cookies make no difference
  const guess = (email: string, password: string) => new TestClient(lock.url).login(email, password);
  const expectLocked = (res: Awaited<ReturnType<TestClient["login"]>>) => {
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: "RATE_LIMITED", details: { scope: "account" } });
    expect(res.body.error.message).toContain("wrong passwords");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(20 * 60);
  };

  test("lock the account's password sign-in, the right password included; signed-in sessions keep working", async () => {
    const user = await makeUser(lock.app);
    const signedIn = new TestClient(lock.url);
    expect((await signedIn.login(user.email!, user.password)).status).toBe(200);
    for (let i = 0; i < 4; i++)
      expect((await guess(user.email!, `wrong guess ${i}`)).body.error.code).toBe("INVALID_CREDENTIALS");
    expectLocked(await guess(user.email!, user.password));
    expectLocked(await guess(user.email!.toUpperCase(), "another guess"));
    // the person's open session is not signed out, and its password change is held too
    expect((await signedIn.get("/api/auth/me")).status).toBe(200);
    const change = await signedIn.post("/api/auth/password/change", {
      currentPassword: user.password,
      newPassword: "a brand new one",
    });
    expectLocked(change);
    // the lock ends on its own
    lock.clock.advance(20 * 60_000 + 1000);
    expect((await guess(user.email!, user.password)).status).toBe(200);
  });

  test("an e-mail without an account locks the same way (a lock tells nothing about which addresses exist)", async () => {
    for (let i = 0; i < 4; i++)
      expect((await guess("nobody-here@example.test", `guess ${i}`)).body.error.code).toBe("INVALID_CREDENTIALS");
    expectLocked(await guess("nobody-here@example.test", "guess 5"));
  });

  test("wrong current passwords in a signed-in session count toward the lock", async () => {
    const user = await makeUser(lock.app);
    const c = new TestClient(lock.url);
    expect((await c.login(user.email!, user.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const res = await c.post("/api/auth/password/change", {
        currentPassword: `nope ${i}`,
        newPassword: "whatever 123",
      });
      expect(res.body.error.details.fieldErrors).toEqual({ currentPassword: ["is incorrect"] });
    }
    expectLocked(await guess(user.email!, user.password));
  });

  test("a password reset by mail lifts the lock", async () => {
    const user = await makeUser(lock.app);
    for (let i = 0; i < 4; i++) await guess(user.email!, `wrong guess ${i}`);
    expectLocked(await guess(user.email!, user.password));
    const anon = new TestClient(lock.url);
    expect((await anon.post("/api/auth/password/forgot", { email: user.email })).status).toBe(200);
    const { token } = lastMail(lockLog, user.email!, "password-reset");
    expect((await anon.post("/api/auth/password/reset", { token, newPassword: "reset after lock" })).status).toBe(200);
    expect((await guess(user.email!, "reset after lock")).status).toBe(200);
  });
});
