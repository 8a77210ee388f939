import { describe, expect, test } from "bun:test";
import type { App } from "../app";
import { TEST_TLS } from "../testing/tls";
import { checkedAddress, FETCH_FAILED, fetchAt } from "./outbound";

// which addresses count as private is swept in src/botapi/ssrf.test.ts
describe("connections go to the checked address (no second DNS answer)", () => {
  // the test certificate is self-signed for the name hook.test
  const { cert, key } = TEST_TLS;
  const noPrivate = { config: { "bot.allowPrivateWebhooks": false } } as unknown as App;

  test("fetchAt connects to the address with the URL's Host header and TLS name", async () => {
    const seen: { host: string | null; path: string; body: string }[] = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { key, cert },
      async fetch(req) {
        const url = new URL(req.url);
        seen.push({ host: req.headers.get("host"), path: url.pathname + url.search, body: await req.text() });
        return new Response("ok");
      },
    });
    try {
      const res = await fetchAt(new URL(`https://hook.test:${receiver.port}/hook?x=1`), "127.0.0.1", {
        method: "POST",
        body: "{}",
        tls: { ca: cert },
      });
      expect(res.status).toBe(200);
      expect(seen).toEqual([{ host: `hook.test:${receiver.port}`, path: "/hook?x=1", body: "{}" }]);
      // the certificate is checked against the URL's name, not the address connected to
      await expect(
        fetchAt(new URL(`https://other.test:${receiver.port}/`), "127.0.0.1", { tls: { ca: cert } }),
      ).rejects.toThrow();
      expect(seen).toHaveLength(1);
    } finally {
      receiver.stop(true);
    }
  });

  test("checkedAddress refuses names and literals that are private at connect time", async () => {
    await expect(checkedAddress(noPrivate, new URL("https://localhost/"))).rejects.toThrow(FETCH_FAILED);
    await expect(checkedAddress(noPrivate, new URL("https://10.1.2.3/"))).rejects.toThrow(FETCH_FAILED);
    await expect(checkedAddress(noPrivate, new URL("https://[::1]/"))).rejects.toThrow(FETCH_FAILED);
    expect(await checkedAddress(noPrivate, new URL("https://8.8.8.8/"))).toBeNull();
    const allowing = { config: { "bot.allowPrivateWebhooks": true } } as unknown as App;
    expect(await checkedAddress(allowing, new URL("https://localhost/"))).toBeNull();
  });
});
