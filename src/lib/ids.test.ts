import { expect, test } from "bun:test";
import { looksLikeCuid, newCuid } from "./ids";

test("ids have cuid2's shape, are unique, and are cheap", () => {
  const seen = new Set<string>();
  const t0 = performance.now();
  for (let i = 0; i < 5000; i++) seen.add(newCuid());
  const perIdMs = (performance.now() - t0) / 5000;
  expect(seen.size).toBe(5000);
  for (const id of [...seen].slice(0, 200)) {
    expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
    expect(looksLikeCuid(id)).toBe(true);
  }
  // informative only: never a timed assertion (the machine is shared and noisy)
  console.log(`newCuid: ${(perIdMs * 1000).toFixed(1)} µs per id`);
});

test("every position of an id varies over the whole alphabet (the digest, not padding or a constant)", () => {
  const ids = Array.from({ length: 5000 }, newCuid);
  for (let at = 0; at < 24; at++) {
    const seen = new Set(ids.map((id) => id[at]));
    // 5,000 draws of 26 letters (the first) or 36 digits hit every one of them
    expect(seen.size).toBe(at === 0 ? 26 : 36);
  }
});

test("looksLikeCuid takes cuid2's shape only", () => {
  for (const good of ["ab", "clh3x9k2a0000qz8y5t1v7w6e", "z".repeat(32)]) expect(looksLikeCuid(good)).toBe(true);
  for (const bad of ["", "a", "Abc", "a-b", "a b", "z".repeat(33), "ab\n"]) expect(looksLikeCuid(bad)).toBe(false);
});
