import { describe, expect, test } from "bun:test";
import type { App } from "../app";
import { TEST_TLS } from "../testing/tls";
import { checkedAddress, FETCH_FAILED, fetchAt, isPrivateAddress } from "./outbound";

describe("outbound address policy", () => {
  test("loopback, private, link-local, CGNAT, multicast, unspecified and IPv4-mapped addresses are private", () => {
    for (const ip of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.1.2.3",
      "::ffff:8.8.8.8",
      "not an ip",
    ]) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: true });
    }
  });

  test("public addresses are not", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700::1111"]) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: false });
    }
  });
});

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
