import { describe, expect, test } from "bun:test";
import { rateLimitKey } from "./client-ip";

describe("rateLimitKey: what a client address counts as in per-address limits", () => {
  test("an IPv6 address counts as its /64, in every spelling", () => {
    const sameNetwork = [
      "2001:db8:31:7::1",
      "2001:db8:31:7:ffff:ffff:ffff:ffff",
      "2001:0db8:0031:0007:0000:0000:0000:0abc",
      "2001:DB8:31:7:a:b:c:d",
      "[2001:db8:31:7::2]",
    ];
    for (const address of sameNetwork) expect(rateLimitKey(address)).toBe("2001:db8:31:7::/64");
    expect(rateLimitKey("2001:db8:31:8::1")).toBe("2001:db8:31:8::/64");
    expect(rateLimitKey("::1")).toBe("::/64");
    expect(rateLimitKey("fe80::1%eth0")).toBe("fe80::/64");
  });

  test("an IPv4 address counts as itself, also when a dual-stack listener sees it IPv4-mapped", () => {
    expect(rateLimitKey("203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitKey("203.0.113.8")).toBe("203.0.113.8");
    expect(rateLimitKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitKey("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(rateLimitKey("0:0:0:0:0:ffff:127.0.0.2")).toBe("127.0.0.2");
    // two IPv4 clients never share a key through the mapped prefix
    expect(rateLimitKey("::ffff:127.0.0.2")).not.toBe(rateLimitKey("::ffff:127.0.0.3"));
  });

  test("anything that is not an address counts as itself", () => {
    expect(rateLimitKey("local")).toBe("local");
    expect(rateLimitKey("")).toBe("");
    expect(rateLimitKey("unknown, 1.2.3.4")).toBe("unknown, 1.2.3.4");
  });
});
