import { expect, test } from "bun:test";
import { CUID_WINDOW, looksLikeCuid, newCuid } from "./ids";

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

test("ids share their first 4 characters in runs of CUID_WINDOW; every position varies over its whole alphabet", () => {
  const ids = Array.from({ length: CUID_WINDOW * 500 }, newCuid);
  const runs: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i > 0 && ids[i]!.slice(0, 4) === ids[i - 1]!.slice(0, 4)) runs[runs.length - 1]!++;
    else runs.push(1);
  }
  // a new prefix starts every CUID_WINDOW ids (two windows drawing the same prefix in a row are
  // a one-in-a-million chance): the first run is what was left of the window before this test
  expect(Math.max(...runs.slice(1, -1))).toBe(CUID_WINDOW);
  for (let at = 0; at < 24; at++) {
    // 500 prefixes and 32,000 digests: each hits every letter (the first) or base-36 digit
    const seen = new Set(ids.map((id) => id[at]));
    expect(seen.size).toBe(at === 0 ? 26 : 36);
  }
  // the rest is drawn for each id: no two ids of a window share it
  expect(new Set(ids.map((id) => id.slice(4))).size).toBe(ids.length);
});

test("looksLikeCuid takes cuid2's shape only", () => {
  for (const good of ["ab", "clh3x9k2a0000qz8y5t1v7w6e", "z".repeat(32)]) expect(looksLikeCuid(good)).toBe(true);
  for (const bad of ["", "a", "Abc", "a-b", "a b", "z".repeat(33), "ab\n"]) expect(looksLikeCuid(bad)).toBe(false);
});
