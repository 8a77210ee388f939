import { afterEach, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { TestClient } from "../testing/client";
import { capturingLog } from "../testing/auth";
import { makeUser } from "../testing/fixtures";
import { WsClient } from "../testing/realtime";
import { CLIENT_API, clientApiPart } from "../clientapi";
import { Elysia } from "elysia";
import { mountBuilt } from "./server";

// Each prefix of the Client API is built on its first request (wiring.ts, lazySurface in
// http/server.ts), not at start, and then joins the root's routes in Bun's router.
let server: TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function started() {
  const capture = capturingLog();
  server = await startTestServer({}, { log: capture.log });
  const builds = () =>
    capture.records.filter((r) => r.msg === "surface built on its first use").map((r) => r.prefix as string);
  return { server, builds };
}

describe("the Client API built prefix by prefix on first use", () => {
  test("other surfaces answer without building any; requests arriving together get their own answers, each prefix built once", async () => {
    const { server, builds } = await started();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const bot = await fetch(`${server.url}/api/bot123:nope/getMe`);
    expect(((await bot.json()) as { ok: boolean }).ok).toBe(false);
    expect((await fetch(`${server.url}/feed`, { headers: { accept: "text/html" } })).status).toBe(200);
    expect(builds()).toEqual([]);

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
    // under no prefix of the table: the Client API's 404, and nothing built for it
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("NOT_FOUND");
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe("CSRF_TOKEN_INVALID");
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe("VALIDATION_ERROR");
    // a route with a parameter, reached (an unknown path would be a 404): it asks for a session
    expect(profile.status).toBe(401);
    expect(profile.body.error.code).toBe("UNAUTHORIZED");
    expect(builds().sort()).toEqual(["/api/auth", "/api/social/users"]);

    const signedIn = await c.get("/api/auth/me");
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.account.username).toBe(user.username);
    // the Client API routes with Elysia's router, which cannot decode this parameter: a 404, as before
    const undecodable = await c.get("/api/social/users/%ZZ");
    expect(undecodable.status).toBe(404);
    expect(undecodable.body.error.code).toBe("NOT_FOUND");
    // a path of a built prefix that no route matches: its 404, through the catch-all
    const noRoute = await c.get("/api/auth/no-such-thing");
    expect(noRoute.status).toBe(404);
    expect(noRoute.body.error.code).toBe("NOT_FOUND");
    // a longer prefix is its own part: /api/auth being built does not build /api/auth/sessions
    expect(builds().sort()).toEqual(["/api/auth", "/api/social/users"]);
    expect((await c.get("/api/auth/sessions")).status).toBe(200);
    expect(builds().filter((p) => p === "/api/auth/sessions")).toHaveLength(1);

    // built, their routes are in Bun's router, and stay there as later prefixes are built: the
    // root's own Elysia router, which a route left out of Bun's would be reached by, takes the
    // undecodable parameter for one (a 422)
    expect((await c.get("/api/social/feed")).status).toBe(200);
    expect((await c.get("/api/auth/csrf")).status).toBe(200);
    expect((await c.get(`/api/social/users/${user.username}`)).status).toBe(200);
    const stillUndecodable = await c.get("/api/social/users/%ZZ");
    expect(stillUndecodable.status).toBe(404);
    expect(stillUndecodable.body.error.code).toBe("NOT_FOUND");
    // each built once, and nothing else: the admin's prefixes, say, are not
    expect(builds().sort()).toEqual(["/api/auth", "/api/auth/sessions", "/api/social/feed", "/api/social/users"]);
  });

  test("a WebSocket upgrade builds its prefix and is upgraded, before and after the prefix joins the root", async () => {
    const { server, builds } = await started();
    const user = await makeUser(server.app);
    const c = new TestClient(server.url);
    expect((await c.login(user.email!, user.password)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const ws = await WsClient.open(server.url, c);
      ws.ws.send(JSON.stringify({ event: "ping" }));
      await ws.waitFor((f) => f.some((x) => x.event === "pong"));
      ws.close();
    }
    expect(builds().filter((p) => p === "/api/realtime")).toHaveLength(1);
  });

  test("the route list and the OpenAPI document build every prefix when no request has; the catch-all is never listed", async () => {
    const { server, builds } = await started();
    const routes = (await server.routes()).map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain("GET /api/auth/me");
    expect(routes).toContain("POST /api/social/posts");
    expect(routes.some((r) => r.startsWith("GET /api/admin/audit"))).toBe(true);
    expect(routes.filter((r) => r.endsWith("/api/*"))).toEqual([]);
    expect(builds().sort()).toEqual(CLIENT_API.map((e) => `/api${e.prefix}`).sort());
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain("/api/auth/me");
    expect(Object.keys(doc.paths)).toContain("/api/admin/audit");
    expect(builds()).toHaveLength(CLIENT_API.length);
  });

  test("every route of the table lies under its own prefix and under no longer one (what a request is handed by)", async () => {
    const { server } = await started();
    const prefixes = CLIENT_API.map((e) => e.prefix);
    const owner = (path: string) =>
      prefixes.filter((p) => path === p || path.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
    let routes = 0;
    for (const entry of CLIENT_API)
      for (const route of (await clientApiPart(server.app, entry)).routes) {
        expect(`${route.method} ${owner(route.path)}`).toBe(`${route.method} ${entry.prefix}`);
        routes++;
      }
    expect(routes).toBeGreaterThan(100);
  });
});

describe("mountBuilt", () => {
  type Reloaded = {
    fetch: (r: Request) => Promise<Response>;
    routes: Record<string, Record<string, (r: Request) => Promise<Response>>>;
  };
  const rootWith = () => {
    const root = new Elysia({ name: "root" })
      .wrap((handle) => async (request: Request) => {
        const res = (await (handle as unknown as (r: Request) => Promise<Response>)(request)) as Response;
        res.headers.set("x-front-door", "1");
        return res;
      })
      .get("/healthz", () => "ok")
      .get("/web/*", () => "page");
    const reloads: Reloaded[] = [];
    (root as { server: unknown }).server = { reload: (options: Reloaded) => void reloads.push(options) };
    return { root, reloads };
  };
  const part = () =>
    new Elysia({ prefix: "/api" })
      .get("/things/:id", ({ params }) => `thing ${params.id}`)
      .post("/things", () => "made")
      .get("/list/", () => "all")
      .ws("/live", { message: () => {} });

  test("a listening root maps its routes and the part's into Bun's router, each through the root's front door", async () => {
    const { root, reloads } = rootWith();
    mountBuilt(root, part());
    // the last reload is the one with the routes (Elysia's compile reloads the fetch alone first)
    const { routes, fetch } = reloads.at(-1)!;
    // WebSocket upgrades and wildcards stay with the root's fetch; a trailing slash is dropped, as Elysia does
    expect(Object.fromEntries(Object.entries(routes).map(([path, byMethod]) => [path, Object.keys(byMethod)]))).toEqual(
      {
        "/healthz": ["GET"],
        "/api/things/:id": ["GET"],
        "/api/things": ["POST"],
        "/api/list": ["GET"],
      },
    );
    const get = Object.assign(new Request("http://local/api/things/7"), { params: { id: "7" } });
    const res = await routes["/api/things/:id"]!.GET!(get);
    expect(await res.text()).toBe("thing 7");
    expect(res.headers.get("x-front-door")).toBe("1");
    expect(await (await fetch(new Request("http://local/api/things/8"))).text()).toBe("thing 8");
    expect(root.routes.map((r) => `${r.method} ${r.path}`)).toContain("WS /api/live");

    // a later part: the map holds both
    mountBuilt(
      root,
      new Elysia({ prefix: "/api" }).get("/others", () => "others"),
    );
    expect(Object.keys(reloads.at(-1)!.routes).sort()).toEqual([
      "/api/list",
      "/api/others",
      "/api/things",
      "/api/things/:id",
      "/healthz",
    ]);
  });

  test("a root not listening yet only gets the routes (its listen maps them)", () => {
    const { root, reloads } = rootWith();
    (root as { server: unknown }).server = null;
    mountBuilt(root, part());
    expect(reloads).toEqual([]);
    expect(root.routes.map((r) => `${r.method} ${r.path}`)).toContain("GET /api/things/:id");
  });
});
