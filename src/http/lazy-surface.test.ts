import { afterEach, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { TestClient } from "../testing/client";
import { capturingLog } from "../testing/auth";
import { makeUser } from "../testing/fixtures";

// The Client API is built on its first request (wiring.ts, lazySurface in http/server.ts), not at start.
let server: TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function started() {
  const capture = capturingLog();
  server = await startTestServer({}, { log: capture.log });
  const builds = () => capture.records.filter((r) => r.msg === "surface built on its first use");
  return { server, builds };
}

describe("the Client API built on its first request", () => {
  test("other surfaces answer without building it; requests arriving together all get their own answer from one build", async () => {
    const { server, builds } = await started();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const bot = await fetch(`${server.url}/api/bot123:nope/getMe`);
    expect(((await bot.json()) as { ok: boolean }).ok).toBe(false);
    expect((await fetch(`${server.url}/feed`, { headers: { accept: "text/html" } })).status).toBe(200);
    expect(builds()).toHaveLength(0);

    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    const anon = new TestClient(server.url);
    const [login, me, unknown, noCsrf, invalid, profile] = await Promise.all([
      c.login(user.email!, user.password),
      anon.get("/api/auth/me"),
      anon.get("/api/no-such-thing"),
      anon.post("/api/auth/login", { email: user.email, password: user.password }, { csrf: false }),
      anon.post("/api/auth/login", { email: 42 }),
      anon.get(`/api/social/users/${user.username}`),
    ]);
    expect(login.status).toBe(200);
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe("UNAUTHORIZED");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("NOT_FOUND");
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe("CSRF_TOKEN_INVALID");
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe("VALIDATION_ERROR");
    // a route with a parameter, reached (an unknown path would be a 404): it asks for a session
    expect(profile.status).toBe(401);
    expect(profile.body.error.code).toBe("UNAUTHORIZED");
    expect(builds()).toHaveLength(1);
    expect(builds()[0]!.prefix).toBe("/api");

    const signedIn = await c.get("/api/auth/me");
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.account.username).toBe(user.username);
    // the Client API routes with Elysia's router, which cannot decode this parameter: a 404, as before
    const undecodable = await c.get("/api/social/users/%ZZ");
    expect(undecodable.status).toBe(404);
    expect(undecodable.body.error.code).toBe("NOT_FOUND");
    expect(builds()).toHaveLength(1);

    // built, its routes are the root's own: Bun's router answers HEAD with the GET body's length,
    // where a handed-over request (Elysia's router) says 0
    const csrf = await fetch(`${server.url}/api/auth/csrf`);
    const length = String((await csrf.arrayBuffer()).byteLength);
    const head = await fetch(`${server.url}/api/auth/csrf`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(length);
  });

  test("the route list and the OpenAPI document build it when no request has; the catch-all is never listed", async () => {
    const { server, builds } = await started();
    const routes = (await server.routes()).map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain("GET /api/auth/me");
    expect(routes).toContain("POST /api/social/posts");
    expect(routes.filter((r) => r.endsWith("/api/*"))).toEqual([]);
    expect(builds()).toHaveLength(1);
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain("/api/auth/me");
    expect(builds()).toHaveLength(1);
  });
});
