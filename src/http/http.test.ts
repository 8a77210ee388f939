import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { TestClient } from "../testing/client";
import { makeUser } from "../testing/fixtures";
import { createLogger } from "../lib/log";
import { createHttpApp } from "./server";

// One https-configured instance behind a trusted proxy: cookie flags, CORS, envelope, client IPs.
let server: TestServer;
let boomUrl: string;
let stopBoom: () => void;
const logged: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const log = createLogger({ level: "error", sink: (line) => logged.push(JSON.parse(line)) });
  server = await startTestServer({ baseUrl: "https://social.example.test", trustProxy: true }, { log });
  // the real root app with one route that has a bug, to see what a thrown error turns into
  const http = createHttpApp(server.app, { largeBodyPaths: [] }).get("/api/test/boom", () => {
    throw new Error("SQLITE_CORRUPT at /srv/secret/social.db (password=hunter2)");
  });
  http.listen({ port: 0, hostname: "127.0.0.1" });
  boomUrl = `http://127.0.0.1:${http.server!.port}`;
  stopBoom = () => void http.stop(true);
});
afterAll(async () => {
  stopBoom();
  await server.stop();
});

const cookieNamed = (res: { headers: Headers }, name: string) =>
  res.headers.getSetCookie().find((l) => l.startsWith(`${name}=`));

describe("cookies on an https instance", () => {
  test("every cookie is Secure and SameSite=Lax; session and device cookies are httpOnly, csrf is not", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const csrf = await c.get("/api/auth/csrf");
    const csrfCookie = cookieNamed(csrf, "csrf_token")!;
    expect(csrfCookie.split("; ")).toEqual(expect.arrayContaining(["Path=/", "SameSite=Lax", "Secure"]));
    expect(csrfCookie).not.toContain("HttpOnly");
    const login = await c.login(user.email!, user.password);
    expect(login.status).toBe(200);
    for (const name of ["auth_access_token", "auth_refresh_token", "device_id"]) {
      const line = cookieNamed(login, name);
      expect(line).toBeDefined();
      expect(line!.split("; ")).toEqual(expect.arrayContaining(["Path=/", "SameSite=Lax", "HttpOnly", "Secure"]));
    }
    const logout = await c.post("/api/auth/logout");
    for (const name of ["auth_access_token", "auth_refresh_token"]) {
      expect(cookieNamed(logout, name)!.split("; ")).toEqual(
        expect.arrayContaining(["Max-Age=0", "Secure", "HttpOnly"]),
      );
    }
  });

  test("an http instance leaves Secure off (a laptop without TLS must still keep its session)", async () => {
    const plain = await startTestServer();
    try {
      const user = await makeUser(plain.app);
      const res = await new TestClient(plain.url).login(user.email!, user.password);
      expect(res.status).toBe(200);
      const access = cookieNamed(res, "auth_access_token")!;
      expect(access).toContain("SameSite=Lax");
      expect(access).not.toContain("Secure");
    } finally {
      await plain.stop();
    }
  });
});

describe("no CORS", () => {
  test("neither answers nor preflights carry Access-Control headers", async () => {
    const origin = { origin: "https://evil.example" };
    const responses = [
      await fetch(`${server.url}/api/auth/csrf`, { headers: origin }),
      await fetch(`${server.url}/api/auth/me`, { headers: origin }),
      await fetch(`${server.url}/api/auth/login`, {
        method: "OPTIONS",
        headers: {
          ...origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,x-csrf-token",
        },
      }),
      await fetch(`${server.url}/healthz`, { headers: origin }),
    ];
    for (const res of responses) {
      const cors = [...res.headers.keys()].filter((k) => k.startsWith("access-control-"));
      expect(cors).toEqual([]);
    }
    // a preflight is not a way in: it gets no 2xx
    expect(responses[2]!.status).toBeGreaterThanOrEqual(400);
  });
});

describe("envelope", () => {
  test("a thrown bug is 500 INTERNAL_ERROR that leaks nothing; the cause goes to the log", async () => {
    const res = await fetch(`${boomUrl}/api/test/boom`);
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toContain("application/json");
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      success: false,
      error: { code: "INTERNAL_ERROR", message: "Internal server error", details: [] },
    });
    for (const secret of ["SQLITE", "/srv/secret", "hunter2", "at "]) expect(text).not.toContain(secret);
    const record = logged.find((r) => r.msg === "unhandled error");
    expect(record).toMatchObject({ level: "error", path: "/api/test/boom" });
    expect(String(record!.error)).toContain("hunter2");
  });

  test("unknown extra request fields are ignored", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const login = await c.post("/api/auth/login", {
      email: user.email,
      password: user.password,
      rememberMe: true,
      device: { name: "x" },
      extra: [1, 2],
    });
    expect(login.status).toBe(200);
    expect(login.body.data.account.username).toBe(user.username);
    const reg = await new TestClient(server.url).post("/api/auth/register", {
      email: "extra@example.test",
      username: "extra_fields",
      password: "long enough pw",
      referrer: "friend",
      isAdmin: true,
    });
    expect(reg.status).toBe(200);
    const row = await server.app.db
      .selectFrom("users")
      .select("is_admin")
      .where("username", "=", "extra_fields")
      .executeTakeFirstOrThrow();
    expect(row.is_admin).toBe(0);
  });

  test("a body that is not JSON, or JSON of the wrong shape, is VALIDATION_ERROR", async () => {
    const c = new TestClient(server.url);
    const cases: Array<[unknown, number]> = [
      ["{", 400],
      ["[]", 422],
      ["null", 422],
      ['"text"', 422],
      ["42", 422],
    ];
    for (const [body, status] of cases) {
      const res = await c.post("/api/auth/login", body, { headers: { "content-type": "application/json" } });
      expect(res.status).toBe(status);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(res.body.error.details.fieldErrors).length).toBeGreaterThan(0);
    }
  });
});

describe("client address behind a trusted proxy", () => {
  test("the right-most X-Forwarded-For entry (added by the proxy) is the client, not the forgeable left ones", async () => {
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const headers = { "x-forwarded-for": "6.6.6.6, 203.0.113.7" };
    expect((await c.post("/api/auth/login", { email: user.email, password: user.password }, { headers })).status).toBe(
      200,
    );
    const list = await c.get("/api/auth/sessions", { headers });
    expect(list.body.data.sessions.map((s: { ip: string }) => s.ip)).toEqual(["203.0.113.7"]);
  });
});
