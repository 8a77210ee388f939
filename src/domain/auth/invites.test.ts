import { expect, test } from "bun:test";
import { newInviteCode } from "./invites";

test("invite codes are 16 URL-safe characters and never start with a dash, which a command line takes for an option", () => {
  // a dash leads one random code in 64: among this many, one would all but surely lead
  const codes = Array.from({ length: 5_000 }, newInviteCode);
  for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/);
  expect(new Set(codes).size).toBe(codes.length);
});
