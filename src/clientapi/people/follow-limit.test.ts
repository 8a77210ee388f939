import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser, quickPerson } from "../../testing/fixtures";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ "limits.followsPerHour": 3 });
});
afterAll(() => server.stop());

test("follows are limited per account per hour with 429 RATE_LIMITED and Retry-After", async () => {
  const a = await quickPerson(server);
  const b = await quickPerson(server);
  const targets = await Promise.all([1, 2, 3, 4].map(() => makeUser(server.app)));
  for (const t of targets.slice(0, 3)) {
    const res = await a.client.post(`/api/social/users/${t.username}/follow`);
    expect(res.status).toBe(200);
  }
  const res = await a.client.post(`/api/social/users/${targets[3]!.username}/follow`);
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe("RATE_LIMITED");
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  // the refused follow did not happen
  const profile = await a.client.get(`/api/social/users/${targets[3]!.username}`);
  expect(profile.body.data.profile).toMatchObject({ isFollowing: false, followersCount: 0 });
  // the limit is per account: someone else may still follow
  expect((await b.client.post(`/api/social/users/${targets[3]!.username}/follow`)).status).toBe(200);
  // after the hour the account may follow again
  server.clock.advance(retryAfter * 1000);
  expect((await a.client.post(`/api/social/users/${targets[3]!.username}/follow`)).body.data).toEqual({
    following: true,
    followersCount: 2,
  });
});
