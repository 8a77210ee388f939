import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startTestServer, type TestServer } from "../testing/server";
import { readFileSync, writeFileSync } from "node:fs";
import { rebuildWebOnChange, webBundle } from "./web-app";

// The web app as HTTP serves it: page, chunks, caching, compression, security headers, SPA fallback.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, { headers, decompress: false } as RequestInit);
const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

async function chunkPaths(): Promise<string[]> {
  const page = await (await get("/", html)).text();
  return [...page.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)].map((m) => m[1]!);
}

describe("web app over HTTP", () => {
  test("/ is the page, with a strict CSP and no caching without revalidation", async () => {
    const res = await get("/", html);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain(`img-src 'self' ${server.app.config.baseUrl}`);
    expect(csp).toContain("frame-ancestors 'none'");
    const body = await res.text();
    expect(body).toContain('<div id="app">');
    // absolute chunk URLs, so deep links load them from the root
    const chunks = await chunkPaths();
    expect(chunks.some((c) => c.endsWith(".js"))).toBe(true);
    expect(chunks.some((c) => c.endsWith(".css"))).toBe(true);
    // no inline script the CSP would block
    expect(body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  });

  test("hashed chunks are immutable, answer 304 to their ETag, and ship the production JSX runtime", async () => {
    const [js] = (await chunkPaths()).filter((c) => c.endsWith(".js"));
    const res = await get(js!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/javascript");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(await res.text()).not.toContain("jsxDEV");
    const again = await get(js!, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const page = await get("/", { ...html, "if-none-match": (await get("/", html)).headers.get("etag")! });
    expect(page.status).toBe(304);
  });

  test("compresses with brotli or gzip as asked, and keeps the result", async () => {
    const [js] = (await chunkPaths()).filter((c) => c.endsWith(".js"));
    const plain = new Uint8Array(await (await get(js!)).arrayBuffer());
    const br = await get(js!, { "accept-encoding": "gzip, br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toContain("Accept-Encoding");
    const brBytes = new Uint8Array(await br.arrayBuffer());
    expect(brBytes.length).toBeLessThan(plain.length);
    expect(new Uint8Array(brotliDecompressSync(brBytes))).toEqual(plain);
    const gz = await get(js!, { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toEqual(plain);
    // each encoding has its own ETag, and a second request gets the same bytes
    expect(gz.headers.get("etag")).not.toBe(br.headers.get("etag"));
    const brAgain = await get(js!, { "accept-encoding": "br" });
    expect(new Uint8Array(await brAgain.arrayBuffer())).toEqual(brBytes);
    expect((await get(js!, { "accept-encoding": "br;q=0, gzip" })).headers.get("content-encoding")).toBe("gzip");
    expect((await get(js!, { "accept-encoding": "identity" })).headers.get("content-encoding")).toBeNull();
  });

  test("client routes get the page when a browser navigates; APIs, files, chunks and programs get JSON 404s", async () => {
    for (const path of [
      "/auth/link?t=abc",
      "/auth/verify-email?token=x",
      "/auth/reset-password?token=y",
      "/dashboard/messages?user=a&start=b",
      "/posts/abc/deep/path",
    ]) {
      const res = await get(path, html);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/html");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
    for (const [path, headers] of [
      ["/api/nope", html],
      ["/api/social/nothing/here", html],
      ["/files/nothing-here.png", html],
      ["/chunk-doesnotexist.js", html],
      ["/some/client/route", { accept: "application/json" }],
    ] as const) {
      const res = await get(path, headers);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    }
    // the Bot API keeps its own envelope, whatever the Accept header says
    const bot = await get("/bot123:nope/getMe", html);
    expect(bot.headers.get("content-type")).toStartWith("application/json");
    expect(((await bot.json()) as { ok: boolean }).ok).toBe(false);
    // HEAD is answered like GET, without a body
    const head = await fetch(`${server.url}/`, { method: "HEAD", headers: html });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBeTruthy();
  });

  test("the instance's sign-up mode is told to the app", async () => {
    const res = (await (await get("/api/auth/csrf")).json()) as { data: unknown };
    expect(res.data).toMatchObject({ captchaRequired: false, registration: "open" });
  });

  test("from source (npm run dev), a change under src/web makes the next page load build anew", async () => {
    const watcher = rebuildWebOnChange()!;
    try {
      const before = webBundle();
      await before;
      // the same bytes written again: a change event, and the tree stays as it was
      const page = new URL("../web/index.html", import.meta.url).pathname;
      writeFileSync(page, readFileSync(page));
      const deadline = Date.now() + 5_000;
      while (webBundle() === before && Date.now() < deadline) await Bun.sleep(20);
      expect(webBundle()).not.toBe(before);
      expect((await get("/", html)).status).toBe(200);
    } finally {
      watcher.close();
    }
  });
});
