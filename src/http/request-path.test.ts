import { expect, test } from "bun:test";
import { requestPath } from "./request-path";

test("requestPath gives what URL's pathname gives, without parsing a URL", () => {
  for (const url of [
    "http://127.0.0.1:8080/",
    "http://127.0.0.1:8080",
    "http://127.0.0.1:8080/api/auth/me",
    "http://127.0.0.1:8080/api/social/feed?following=true&cursor=a/b",
    "http://example.org/api/bot123:abc/getMe#frag?x",
    "http://example.org/a?b#c",
    "http://example.org/files/%D0%B0.png?x=/y",
    "https://[::1]:443/readyz?",
  ]) {
    expect(requestPath(new Request(url))).toBe(new URL(url).pathname);
  }
});
