import { expect, test } from "bun:test";
import { csrfCheck, issueCsrfToken } from "./csrf";

test("csrfCheck: a signed token equal to its cookie passes, again and again; a remembered token still needs its cookie", () => {
  const check = csrfCheck("instance secret");
  const token = issueCsrfToken("instance secret");
  for (let i = 0; i < 3; i++) expect(check(token, token)).toBe(true);
  expect(check(token, undefined)).toBe(false);
  expect(check(token, issueCsrfToken("instance secret"))).toBe(false);
  expect(check(undefined, token)).toBe(false);
  expect(check(null, token)).toBe(false);
});

test("csrfCheck: tokens not signed by this instance are refused every time, never remembered", () => {
  const check = csrfCheck("instance secret");
  const foreign = issueCsrfToken("another instance");
  const [value, signature] = issueCsrfToken("instance secret").split(".") as [string, string];
  for (const bad of [
    foreign,
    // a near miss that differs from the signature (which ends in "A" one time in 64)
    `${value}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
    `x${value}.${signature}`,
    value,
    `.${signature}`,
  ]) {
    for (let i = 0; i < 3; i++) expect(check(bad, bad)).toBe(false);
  }
  // what one instance accepted says nothing to another one's check
  const other = csrfCheck("another instance");
  expect(other(foreign, foreign)).toBe(true);
  expect(check(foreign, foreign)).toBe(false);
});
