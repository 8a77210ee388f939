import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser } from "../../testing/fixtures";

// Two servers: the per-second API limit and the login budget need different settings.
let rps: TestServer;
let login: TestServer;
beforeAll(async () => {
  rps = await startTestServer({ "limits.clientRps": 5, "limits.blockAfterRejections": 3, "limits.blockSeconds": 60 });
  login = await startTestServer({ "limits.loginPer10Min": 3 });
});
afterAll(async () => {
  await rps.stop();
  await login.stop();
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
