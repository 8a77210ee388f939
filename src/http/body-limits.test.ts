import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import type { TestClient } from "../testing/client";
import { UPLOAD_PATH } from "../clientapi/uploads/path";
import { CLIENT_BODY_MAX_BYTES } from "./server";

/**
 * What any request can cost before it is authenticated and validated: a body over the cap is
 * refused from its Content-Length (or refused when it has none), authentication runs before
 * schema validation, and no schema walks a large value super-linearly. The routes come from
 * the running server's own route table, so a route added later is covered without editing this.
 */

let server: TestServer;
let member: TestClient;
let anon: { csrf: string; cookie: string };
let allRoutes: Awaited<ReturnType<TestServer["routes"]>>;

beforeAll(async () => {
  server = await startTestServer();
  member = (await signedInClient(server)).client;
  allRoutes = await server.routes();
  const res = await fetch(`${server.url}/api/auth/csrf`);
  const csrf = ((await res.json()) as any).data.csrfToken as string;
  anon = { csrf, cookie: `csrf_token=${encodeURIComponent(csrf)}` };
});
afterAll(() => server.stop());

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Every Client API route that takes a body (the upload route streams its own, with its own limits). */
function jsonRoutes() {
  const routes = allRoutes.filter(
    (r) => r.path.startsWith("/api/") && BODY_METHODS.has(r.method) && r.path !== UPLOAD_PATH,
  );
  expect(routes.length).toBeGreaterThan(40);
  return routes;
}

/** The route's path with every parameter filled in. */
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, "x1");

/** A JSON body of about BYTES naming every field of the route's schema (a string per field). */
function bigBody(fields: string[], bytes: number): string {
  const names = fields.length ? fields : ["x"];
  const each = Math.floor(bytes / names.length);
  return JSON.stringify(Object.fromEntries(names.map((n) => [n, "a".repeat(each)])));
}

/** Headers of the anonymous attacker (only the free CSRF cookie) or of a signed-in member. */
function headersOf(who: "anon" | "member"): Record<string, string> {
  if (who === "anon") return { "content-type": "application/json", "x-csrf-token": anon.csrf, cookie: anon.cookie };
  const csrf = member.cookies.get("csrf_token") ?? "";
  return {
    "content-type": "application/json",
    "x-csrf-token": csrf,
    cookie: [...member.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "),
  };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

describe("request bodies are bounded before anything else", () => {
  test("a 1 MB body to every JSON route is refused in the Client API envelope while /healthz keeps answering", async () => {
    const jobs = jsonRoutes().flatMap((r) => (["anon", "member"] as const).map((who) => ({ ...r, who })));
    const answers: { route: string; status: number; code: unknown; ms: number }[] = [];
    let done = false;
    const health: number[] = [];
    let healthFailures = 0;
    const poller = (async () => {
      // bounded: stops with the burst, or after 60 s whatever happens
      const until = Date.now() + 60_000;
      while (!done && Date.now() < until) {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/healthz`);
        await res.arrayBuffer();
        if (res.status !== 200) healthFailures++;
        health.push(performance.now() - t0);
        await Bun.sleep(5);
      }
    })();
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const body = bigBody(Object.keys((job.hooks as any)?.body?.properties ?? {}), 1024 * 1024);
        const t0 = performance.now();
        const res = await fetch(server.url + concrete(job.path), {
          method: job.method,
          headers: headersOf(job.who),
          body,
        });
        const json = (await res.json().catch(() => null)) as any;
        answers.push({
          route: `${job.who} ${job.method} ${job.path}`,
          status: res.status,
          code: json?.error?.code,
          ms: performance.now() - t0,
        });
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    done = true;
    await poller;
    const wrong = answers.filter((a) => a.status !== 413 || a.code !== "VALIDATION_ERROR");
    expect(wrong).toEqual([]);
    // liveness during the burst, not its speed (speed belongs to scripts/bench*): every probe answered
    expect(health.length).toBeGreaterThan(0);
    expect(healthFailures).toBe(0);
    console.log(
      `1 MB burst: ${answers.length} requests, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms; /healthz ${health.length} probes, p99 ${p99(health).toFixed(1)} ms, max ${Math.max(...health).toFixed(1)} ms`,
    );
  });

  test("a body without a Content-Length (chunked) is refused unless it is an upload", async () => {
    for (const r of jsonRoutes().slice(0, 10)) {
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(`{"content":"${"a".repeat(1000)}`));
          c.close();
        },
      });
      const res = await fetch(server.url + concrete(r.path), {
        method: r.method,
        headers: headersOf("anon"),
        body: stream,
        duplex: "half",
      } as RequestInit);
      const json = (await res.json()) as any;
      expect({ route: r.path, status: res.status, code: json.error?.code }).toEqual({
        route: r.path,
        status: 411,
        code: "VALIDATION_ERROR",
      });
    }
  });

  test(`a body just under the cap (${CLIENT_BODY_MAX_BYTES} bytes) is authenticated before it is validated`, async () => {
    const anonymous: string[] = [];
    for (const r of jsonRoutes()) {
      // which routes need a session: an empty body without one
      const empty = await fetch(server.url + concrete(r.path), {
        method: r.method,
        headers: headersOf("anon"),
        body: "{}",
      });
      await empty.arrayBuffer();
      if (empty.status !== 401) continue;
      anonymous.push(r.path);
      const body = bigBody(Object.keys((r.hooks as any)?.body?.properties ?? {}), CLIENT_BODY_MAX_BYTES - 1024);
      const res = await fetch(server.url + concrete(r.path), { method: r.method, headers: headersOf("anon"), body });
      const json = (await res.json()) as any;
      expect({ route: `${r.method} ${r.path}`, status: res.status, code: json.error?.code }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 401,
        code: "UNAUTHORIZED",
      });
    }
    expect(anonymous.length).toBeGreaterThan(30);
  });

  test("promote's rights: a string where an object belongs costs as much as any other wrong type", async () => {
    const group = await member.post("/api/social/groups", { title: "Cost" });
    const cid = group.body.data.conversationId;
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/social/groups/${cid}/members/nobody/promote`, {
      method: "POST",
      headers: headersOf("member"),
      body: JSON.stringify({ rights: "a".repeat(CLIENT_BODY_MAX_BYTES - 100) }),
    });
    const json = (await res.json()) as any;
    expect({ status: res.status, code: json.error.code }).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    // one field error for the one wrong field, not one per character
    expect(Object.keys(json.error.details.fieldErrors)).toEqual(["rights"]);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
