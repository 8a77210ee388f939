import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import type { TestClient } from "../testing/client";
import { UPLOAD_PATH } from "./uploads/path";
import { sweep } from "../testing/sweep";

/**
 * A fuzz sweep over every registered Client API route (from the server's own route table):
 * hostile path parameters, query strings, bodies of every JSON type in every schema field,
 * and bodies that are not JSON at all. Whatever is sent, the answer is never a 5xx, always in
 * the Client API envelope, and in bounded time. Bounded: about 1,500 requests.
 */

let server: TestServer;
let member: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  const signed = await signedInClient(server);
  member = signed.client;
  // an administrator, so the admin routes are fuzzed past their guard too
  await server.app.db.updateTable("users").set({ is_admin: 1 }).where("id", "=", signed.user.id).execute();
});
afterAll(() => server.stop());

/** Streams and files answer in their own formats; signing out would end the sweep's session. */
const SKIPPED = new Set([
  "GET /api/realtime/events",
  "WS /api/realtime/ws",
  "POST /api/auth/logout",
  `POST ${UPLOAD_PATH}`,
]);

const HOSTILE_IDS = [
  "0",
  "-1",
  "99999999999999999999",
  "%00",
  "..%2F..%2Fetc",
  "%27%20OR%201%3D1--",
  "x".repeat(300),
  "%F0%9F%98%80",
  "%ZZ",
];
const HOSTILE_QUERIES = [
  "cursor=%00&limit=-5",
  "cursor=eyJ4Ijo&limit=abc&q=%00",
  "limit=1e309&cursor=" + "A".repeat(500),
  "q=" + "%28".repeat(200) + "&type=nope",
];
const BAD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  2 ** 53,
  1.5,
  "",
  "x",
  "\u0000",
  "a".repeat(5000),
  [],
  [null],
  [[[[[]]]]],
  {},
  { a: { b: {} } },
];
const RAW_BODIES: Array<[contentType: string, body: string]> = [
  ["application/json", "{"],
  ["application/json", "null"],
  ["application/json", "[]"],
  ["application/json", '"text"'],
  ["application/json", "1e999"],
  ["application/json", "[".repeat(5000) + "]".repeat(5000)],
  ["text/plain", "hello"],
  ["application/x-www-form-urlencoded", "a=1&a=2&content=%00"],
  ["multipart/form-data; boundary=zz", '--zz\r\nContent-Disposition: form-data; name="content"\r\n\r\nx\r\n--zz--'],
];

interface Probe {
  route: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

function probesFor(route: { method: string; path: string; hooks?: unknown }): Probe[] {
  const name = `${route.method} ${route.path}`;
  const fill = (id: string) => route.path.replace(/:[A-Za-z]+/g, id);
  const fields = Object.keys(
    (route.hooks as { body?: { properties?: Record<string, unknown> } })?.body?.properties ?? {},
  );
  const takesBody = route.method !== "GET" && route.method !== "HEAD";
  const probes: Probe[] = [];
  if (route.path.includes(":"))
    for (const id of HOSTILE_IDS)
      probes.push({ route: name, method: route.method, path: fill(id), body: takesBody ? "{}" : undefined });
  if (!takesBody) {
    for (const q of HOSTILE_QUERIES) probes.push({ route: name, method: route.method, path: `${fill("x1")}?${q}` });
    return probes;
  }
  for (const field of fields.length ? fields : ["x"]) {
    for (const value of BAD_VALUES)
      probes.push({ route: name, method: route.method, path: fill("x1"), body: JSON.stringify({ [field]: value }) });
  }
  // every field wrong at once, with the same value
  for (const value of BAD_VALUES)
    probes.push({
      route: name,
      method: route.method,
      path: fill("x1"),
      body: JSON.stringify(Object.fromEntries(fields.map((f) => [f, value]))),
    });
  for (const [contentType, body] of RAW_BODIES)
    probes.push({ route: name, method: route.method, path: fill("x1"), body, contentType });
  return probes;
}

describe("fuzzing every Client API route", () => {
  test("no bad input gets a 5xx or an answer outside the envelope", async () => {
    // the reference (openapi.json, docs pages: detail.hide) is no part of the API it describes
    const routes = (await server.routes()).filter(
      (r) =>
        r.path.startsWith("/api/") &&
        !SKIPPED.has(`${r.method} ${r.path}`) &&
        !(r.hooks as { detail?: { hide?: boolean } }).detail?.hide,
    );
    expect(routes.length).toBeGreaterThan(80);
    const probes = routes.flatMap(probesFor);
    const csrf = member.cookies.get("csrf_token") ?? "";
    const { problems, slowest } = await sweep(
      probes,
      (p) => {
        const headers: Record<string, string> = { cookie: member.cookieHeader(), "x-csrf-token": csrf };
        if (p.body !== undefined) headers["content-type"] = p.contentType ?? "application/json";
        return fetch(server.url + p.path, { method: p.method, headers, body: p.body });
      },
      (p, { status, text, json, ms }) => {
        const enveloped =
          status < 300
            ? json?.success === true && "data" in json
            : json?.success === false &&
              typeof json.error?.code === "string" &&
              typeof json.error?.message === "string";
        // how long an answer took is reported below, not judged: a stall of the machine is no bug of
        // the route, and a route that hangs fails the test by its timeout
        return status >= 500 || !enveloped
          ? {
              route: p.route,
              path: p.path.slice(0, 120),
              body: p.body?.slice(0, 80),
              status,
              answer: text.slice(0, 160),
              ms: Math.round(ms),
            }
          : null;
      },
    );
    console.log(
      `Client API fuzz: ${probes.length} requests over ${routes.length} routes; slowest ${Math.round(slowest.ms)} ms (${slowest.item?.route})`,
    );
    expect(problems).toEqual([]);
    // the sweep's own session survived it (no route let junk sign it out)
    expect((await member.get("/api/auth/me")).status).toBe(200);
  }, 300_000);
});
