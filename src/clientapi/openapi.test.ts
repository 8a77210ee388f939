import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "elysia";
import { clientApiRoutes } from ".";
import { documentPath } from "./openapi";
import { ROUTE_ERRORS_KEY } from "./docs";
import { inProcessApp, type InProcessApp } from "../testing/in-process";
import { signedInClient } from "../testing/fixtures";

type Json = Record<string, any>;
type Route = { method: string; path: string; hooks: Json };

let server: InProcessApp;
let document: Json;
let routes: Route[];

beforeAll(async () => {
  // the document and the answers checked against it, not their transport: in process
  server = await inProcessApp();
  const res = await server.fetch("/api/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  document = (await res.json()) as Json;
  // the app's own routes, enumerated the way the server mounts them
  routes = ((await clientApiRoutes(server.app)).routes as Route[]).filter((r) => !r.hooks.detail?.hide);
});
afterAll(() => server.stop());

const operationOf = (route: Route) =>
  document.paths[documentPath(route.path)]?.[route.method === "WS" ? "get" : route.method.toLowerCase()];

describe("/api/openapi.json", () => {
  test("is a valid OpenAPI 3.1 document by a real validator", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  test("lists every Client API route with a summary, a success response and its errors", () => {
    expect(routes.length).toBeGreaterThan(100);
    const missing = routes.filter((r) => !operationOf(r)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const operations = Object.values(document.paths).flatMap((p: any) => Object.values(p)) as Json[];
    // nothing documented that the app does not serve
    expect(operations.length).toBe(routes.length);
    for (const route of routes) {
      const op = operationOf(route);
      const where = `${route.method} ${route.path}`;
      expect([where, typeof op.summary === "string" && op.summary.length > 5]).toEqual([where, true]);
      const success = op.responses[route.method === "WS" ? 101 : 200];
      expect([where, success !== undefined]).toEqual([where, true]);
      expect([where, op.responses[500]?.description]).toEqual([where, "INTERNAL_ERROR"]);
      expect(op[ROUTE_ERRORS_KEY]).toContain("RATE_LIMITED");
    }
  });

  test("shows the cookie session and the CSRF header as security schemes, per route", () => {
    expect(document.components.securitySchemes.session).toMatchObject({ in: "cookie", name: "auth_access_token" });
    expect(document.components.securitySchemes.csrf).toMatchObject({ in: "header", name: "x-csrf-token" });
    expect(document.paths["/api/auth/csrf"].get.security).toEqual([]);
    expect(document.paths["/api/auth/login"].post.security).toEqual([{ csrf: [] }]);
    expect(document.paths["/api/auth/me"].get.security).toEqual([{ session: [] }]);
    expect(document.paths["/api/social/posts"].post.security).toEqual([{ session: [], csrf: [] }]);
    const me = document.paths["/api/auth/me"].get;
    expect(me.responses[401].content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual(
      ["UNAUTHORIZED"],
    );
    expect(document.paths["/api/admin/status"].get[ROUTE_ERRORS_KEY]).toContain("FORBIDDEN");
    expect(document.paths["/api/auth/login"].post[ROUTE_ERRORS_KEY]).toContain("TWO_FACTOR_REQUIRED");
  });

  test("documents paging parameters and the request body schemas that validate requests", () => {
    const feed = document.paths["/api/social/feed"].get;
    expect(feed.parameters.map((p: Json) => p.name).sort()).toEqual(["cursor", "following", "limit"]);
    expect(feed.responses[200].content["application/json"].schema.properties.data.properties.pageInfo).toBeDefined();
    const create = document.paths["/api/social/posts"].post;
    expect(Object.keys(create.requestBody.content)).toEqual(["application/json"]);
    expect(create.requestBody.content["application/json"].schema.properties.clientPostId.maxLength).toBe(64);
    const upload = document.paths["/api/account/upload"].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(["multipart/form-data"]);
  });

  test("real answers match the documented response schemas", async () => {
    const { client } = await signedInClient(server);
    const schemaOf = (method: string, path: string): TSchema => {
      const route = routes.find((r) => r.method === method && r.path === path)!;
      return route.hooks.detail.responses[200].content["application/json"].schema;
    };
    const check = (method: string, path: string, body: unknown) => {
      const errors = [...Value.Errors(schemaOf(method, path), body)].map((e) => `${e.path}: ${e.message}`);
      expect([`${method} ${path}`, errors]).toEqual([`${method} ${path}`, []]);
    };
    const post = await client.post("/api/social/posts", { content: "hello #docs", poll: { options: ["a", "b"] } });
    check("POST", "/api/social/posts", post.body);
    check("GET", "/api/auth/me", (await client.get("/api/auth/me")).body);
    check("GET", "/api/social/feed", (await client.get("/api/social/feed")).body);
    check("GET", "/api/social/posts/:id", (await client.get(`/api/social/posts/${post.body.data.post.id}`)).body);
    const comment = await client.post(`/api/social/posts/${post.body.data.post.id}/comments`, { content: "hi" });
    check("POST", "/api/social/posts/:id/comments", comment.body);
    check("GET", "/api/auth/sessions", (await client.get("/api/auth/sessions")).body);
    check("GET", "/api/stars/transactions", (await client.get("/api/stars/transactions")).body);
    const bot = await client.post("/api/bots", { username: "docs_bot", name: "Docs" });
    check("POST", "/api/bots", bot.body);
    check("GET", "/api/bots/:username/log", (await client.get("/api/bots/docs_bot/log")).body);
    const chat = await client.post("/api/social/users/docs_bot/message", { start: "x" });
    check("POST", "/api/social/users/:username/message", chat.body);
    const sent = await client.post(`/api/social/messages/${chat.body.data.conversationId}`, { content: "hi" });
    check("POST", "/api/social/messages/:cid", sent.body);
    check("GET", "/api/social/messages", (await client.get("/api/social/messages")).body);
    check(
      "GET",
      "/api/social/messages/:cid",
      (await client.get(`/api/social/messages/${chat.body.data.conversationId}`)).body,
    );
  });

  test("real answers of the resources the web app reads match the documented schemas (admin, reposts, stories, notifications)", async () => {
    const check = (method: string, path: string, body: unknown) => {
      const route = routes.find((r) => r.method === method && r.path === path);
      expect([`${method} ${path}`, route !== undefined]).toEqual([`${method} ${path}`, true]);
      const schema: TSchema = route!.hooks.detail.responses[200].content["application/json"].schema;
      const errors = [...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`);
      expect([`${method} ${path}`, errors]).toEqual([`${method} ${path}`, []]);
    };
    const { client: admin } = await signedInClient(server, { isAdmin: true });
    const { client: author, user } = await signedInClient(server);
    const post = (await author.post("/api/social/posts", { content: "to repost" })).body.data.post;
    const repost = await admin.post(`/api/social/posts/${post.id}/repost`);
    check("POST", "/api/social/posts/:id/repost", repost.body);
    check("GET", "/api/social/feed", (await admin.get("/api/social/feed?following=false")).body);
    await author.post(`/api/social/users/${(await admin.get("/api/auth/me")).body.data.account.username}/follow`);
    check("GET", "/api/social/notifications/", (await admin.get("/api/social/notifications")).body);
    check("GET", "/api/instance/", (await admin.get("/api/instance")).body);
    check("GET", "/api/social/stories", (await admin.get("/api/social/stories")).body);
    check("GET", "/api/social/search", (await admin.get("/api/social/search?q=repost")).body);
    check("GET", "/api/account/settings", (await admin.get("/api/account/settings")).body);
    check("GET", "/api/auth/captcha", (await admin.get("/api/auth/captcha")).body);
    check("GET", "/api/account/notification-settings", (await admin.get("/api/account/notification-settings")).body);
    check("GET", "/api/admin/status/", (await admin.get("/api/admin/status")).body);
    check("GET", "/api/admin/accounts/:username", (await admin.get(`/api/admin/accounts/${user.username}`)).body);
    check("GET", "/api/admin/settings/", (await admin.get("/api/admin/settings")).body);
    check("GET", "/api/admin/content/posts/:id", (await admin.get(`/api/admin/content/posts/${post.id}`)).body);
    const invite = await admin.post("/api/admin/invites", {});
    check("POST", "/api/admin/invites/", invite.body);
    check("GET", "/api/admin/invites/", (await admin.get("/api/admin/invites")).body);
    check("GET", "/api/admin/bots/", (await admin.get("/api/admin/bots")).body);
    check("GET", "/api/admin/audit/", (await admin.get("/api/admin/audit")).body);
    check("GET", "/api/admin/jobs/", (await admin.get("/api/admin/jobs")).body);
    check("GET", "/api/admin/maintenance/backups", (await admin.get("/api/admin/maintenance/backups")).body);
    await author.post("/api/social/reports", { target: { type: "post", id: post.id }, reason: "spam" });
    check("GET", "/api/social/reports/", (await author.get("/api/social/reports")).body);
    check("GET", "/api/admin/reports/", (await admin.get("/api/admin/reports")).body);
    // last: the start issues a new CSRF token, which this client does not pick up for its writes
    check("GET", "/api/start/", (await admin.get("/api/start")).body);
  });
});
