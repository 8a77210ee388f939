import { expect, test } from "bun:test";
import { cookieValue } from "./cookies";

/** The plain reading of a Cookie header: split at ';', the first '=' ends the name, both trimmed, the last of a name wins. */
function splitCookies(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const raw = part.slice(eq + 1).trim();
    let value = raw;
    try {
      if (raw.includes("%")) value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    out[part.slice(0, eq).trim()] = value;
  }
  return out;
}

test("cookieValue finds a cookie as splitting the whole header does", () => {
  const headers = [
    "auth_access_token=abc.def; auth_refresh_token=ghi.jkl; csrf_token=x.y",
    "csrf_token=1;auth_access_token=2",
    "  auth_access_token = spaced ;auth_refresh_token=",
    "a=auth_access_token=inside; b= auth_access_token=5",
    "xauth_access_token=1; auth_access_tokenx=2",
    "auth_access_token=first; auth_access_token=second",
    "auth_access_token",
    "auth_access_token; auth_access_token=after-a-bare-name",
    "n=%E2%9C%93; m=%zz; auth_access_token=a%2Eb",
    "\u00a0auth_access_token\u00a0=nbsp",
    ";;; =x; auth_access_token==eq=",
    "",
  ];
  for (const header of headers) {
    const all = splitCookies(header);
    for (const name of ["auth_access_token", "auth_refresh_token", "csrf_token", "n", "m", "a", "b"])
      expect([header, name, cookieValue(header, name)]).toEqual([header, name, all[name]]);
  }
  expect(cookieValue(null, "csrf_token")).toBeUndefined();
});

test("cookieValue agrees with the plain reading on random headers", () => {
  const pieces = ["auth_access_token", "csrf_token", "=", ";", " ", "x", "%41", "%", "\t", "auth"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 3000; i++) {
    let header = "";
    for (let n = next() % 12; n > 0; n--) header += pieces[next() % pieces.length];
    const all = splitCookies(header);
    for (const name of ["auth_access_token", "csrf_token", "x"])
      expect([header, cookieValue(header, name)]).toEqual([header, all[name]]);
  }
});
