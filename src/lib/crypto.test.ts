import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { hmacSha256, hmacSha256Of, randomBytes, randomInt, safeEqual, sha256, sha256Hex } from "./crypto";

describe("hashes and HMACs (Bun's hasher) agree with node:crypto", () => {
  test("SHA-256, whole and incremental", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(new Uint8Array([1, 2, 3]))).toBe(
      createHash("sha256")
        .update(new Uint8Array([1, 2, 3]))
        .digest("hex"),
    );
    expect(sha256().update("a").update("bc").digest("hex")).toBe(sha256Hex("abc"));
  });

  test("HMAC-SHA256 with string and binary keys", () => {
    expect(hmacSha256("key", "message")).toBe(createHmac("sha256", "key").update("message").digest("base64url"));
    const key = Buffer.from("00ff10", "hex");
    expect(hmacSha256Of(key).update("data").digest("hex")).toBe(createHmac("sha256", key).update("data").digest("hex"));
  });

  test("safeEqual", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("abcd", "abc")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("", "a")).toBe(false);
    expect(safeEqual("a", "")).toBe(false);
    expect(safeEqual("ä€😀", "ä€😀")).toBe(true);
    expect(safeEqual("ä€😀", "ä€😁")).toBe(false);
    // a code unit that differs only beyond the low byte
    expect(safeEqual("\u0100", "\u0000")).toBe(false);
  });
});

describe("random values", () => {
  test("randomInt stays in [min, max) and reaches every value", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = randomInt(3, 9);
      expect(Number.isInteger(n) && n >= 3 && n < 9).toBe(true);
      seen.add(n);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7, 8]);
    expect(randomInt(0, 1)).toBe(0);
    const big = randomInt(0, 1_000_000);
    expect(big >= 0 && big < 1_000_000).toBe(true);
  });

  test("randomBytes gives N bytes, different each time", () => {
    const a = randomBytes(16);
    expect(a).toBeInstanceOf(Buffer);
    expect(a.length).toBe(16);
    expect(a.equals(randomBytes(16))).toBe(false);
  });
});
