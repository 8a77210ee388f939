import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../../app";
import { createLogger } from "../../lib/log";
import { serveHttps } from "../../testing/tls";
import { framingVerdict, webAppFraming } from "./web-app-framing";

const APP = "https://social.example";
const verdict = (headers: Record<string, string>, pageOrigin = "https://shop.example") =>
  framingVerdict(new Headers(headers), APP, pageOrigin);

describe("whether a page lets the app frame it (the browser's rules)", () => {
  test("no header allows; X-Frame-Options DENY refuses; SAMEORIGIN allows only the same origin", () => {
    expect(verdict({})).toBe("allowed");
    expect(verdict({ "x-frame-options": "DENY" })).toBe("refused");
    expect(verdict({ "x-frame-options": "sameorigin" })).toBe("refused");
    expect(verdict({ "x-frame-options": "SAMEORIGIN" }, APP)).toBe("allowed");
    // conflicting values count as DENY; values browsers ignore change nothing
    expect(verdict({ "x-frame-options": "SAMEORIGIN, DENY" }, APP)).toBe("refused");
    expect(verdict({ "x-frame-options": "ALLOW-FROM https://social.example" })).toBe("allowed");
  });

  test("CSP frame-ancestors decides when present, X-Frame-Options is then ignored", () => {
    expect(verdict({ "content-security-policy": "frame-ancestors 'none'" })).toBe("refused");
    expect(verdict({ "content-security-policy": "default-src 'self'; frame-ancestors 'self'" })).toBe("refused");
    expect(verdict({ "content-security-policy": "frame-ancestors 'self'" }, APP)).toBe("allowed");
    expect(
      verdict({ "content-security-policy": "frame-ancestors https://social.example", "x-frame-options": "DENY" }),
    ).toBe("allowed");
    expect(verdict({ "content-security-policy": "frame-ancestors *" })).toBe("allowed");
    expect(verdict({ "content-security-policy": "frame-ancestors https:" })).toBe("allowed");
    expect(verdict({ "content-security-policy": "frame-ancestors *.example" })).toBe("allowed");
    expect(verdict({ "content-security-policy": "frame-ancestors https://*.other.example" })).toBe("refused");
    expect(verdict({ "content-security-policy": "frame-ancestors social.example:8443" })).toBe("refused");
    expect(verdict({ "content-security-policy": "frame-ancestors social.example:*" })).toBe("allowed");
    // a policy without frame-ancestors says nothing about frames
    expect(verdict({ "content-security-policy": "default-src 'none'", "x-frame-options": "DENY" })).toBe("refused");
    expect(verdict({ "content-security-policy": "default-src 'none'" })).toBe("allowed");
    // two policies: each is enforced
    expect(verdict({ "content-security-policy": "frame-ancestors *, frame-ancestors 'none'" })).toBe("refused");
  });

  test("ports and schemes: http: lets https in; no port means the default one", () => {
    const local = (csp: string) =>
      framingVerdict(new Headers({ "content-security-policy": csp }), "http://127.0.0.1:3000", "https://a.test");
    expect(local("frame-ancestors http://127.0.0.1:3000")).toBe("allowed");
    expect(local("frame-ancestors http://127.0.0.1")).toBe("refused");
    expect(local("frame-ancestors https://127.0.0.1:3000")).toBe("refused");
    expect(local("frame-ancestors http:")).toBe("allowed");
  });
});

describe("asking the mini-app's server", () => {
  const asked: string[] = [];
  let site: ReturnType<typeof serveHttps>;
  beforeAll(() => {
    site = serveHttps((req) => {
      const url = new URL(req.url);
      asked.push(url.pathname + url.search);
      if (url.pathname === "/moved") return Response.redirect("/deny", 302);
      if (url.pathname === "/deny") return new Response("no", { headers: { "x-frame-options": "DENY" } });
      return new Response("yes");
    });
  });
  afterAll(() => site?.stop(true));
  const app = (allowPrivate: boolean) =>
    ({
      config: { baseUrl: "http://127.0.0.1:1", "bot.allowPrivateWebhooks": allowPrivate },
      log: { info: () => undefined },
    }) as unknown as App;

  test("on this machine (private targets allowed) the page's answer, after its redirects, without the fragment", async () => {
    const base = `https://127.0.0.1:${site.port}`;
    asked.length = 0;
    expect(await webAppFraming(app(true), `${base}/ok?x=1#tgWebAppData=secret`)).toBe("allowed");
    expect(await webAppFraming(app(true), `${base}/moved#tgWebAppData=secret`)).toBe("refused");
    expect(asked).toEqual(["/ok?x=1", "/moved", "/deny"]);
  });

  test("a private address is never asked when private targets are not allowed: unknown", async () => {
    asked.length = 0;
    expect(await webAppFraming(app(false), `https://127.0.0.1:${site.port}/deny`)).toBe("unknown");
    expect(await webAppFraming(app(false), `https://localhost:${site.port}/deny`)).toBe("unknown");
    expect(asked).toEqual([]);
    // nothing listens there: unknown too
    expect(await webAppFraming(app(true), "https://127.0.0.1:1/")).toBe("unknown");
  });
});

describe("mini-app launch data in the log", () => {
  test("a mini-app whose page cannot be asked is logged by origin and path only", async () => {
    const logged: string[] = [];
    const app = {
      config: { baseUrl: "http://127.0.0.1:1", "bot.allowPrivateWebhooks": false },
      log: createLogger({ level: "debug", sink: (l) => logged.push(l) }),
    } as unknown as App;
    const signed = encodeURIComponent("query_id=AAE&user=%7B%22id%22%3A7%7D&auth_date=1&hash=deadbeefcafe");
    const launch = `https://127.0.0.1:9/shop/app?ref=bot-secret-ref#tgWebAppData=${signed}&tgWebAppVersion=7.0`;
    expect(await webAppFraming(app, launch)).toBe("unknown");
    const records = logged.map((l) => JSON.parse(l));
    const record = records.find((r) => r.msg === "mini-app framing not checked");
    expect(record).toMatchObject({ level: "info", origin: "https://127.0.0.1:9", path: "/shop/app" });
    expect(record.cause).toEqual(expect.any(String));
    const all = logged.join("\n");
    for (const leak of ["tgWebAppData", "deadbeefcafe", "query_id", "bot-secret-ref", signed]) {
      expect(all).not.toContain(leak);
    }
  });
});
