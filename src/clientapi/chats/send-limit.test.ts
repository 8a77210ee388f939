import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ "limits.messagesPerMinute": 3 });
});
afterAll(() => server.stop());

test("sends per account per minute are limited; the window passes", async () => {
  const [a, b] = [await quickPerson(server), await quickPerson(server)];
  const cid = (await a.client.post(`/api/social/users/${b.user.username}/message`)).body.data.conversationId;
  for (let i = 0; i < 3; i++)
    expect((await a.client.post(`/api/social/messages/${cid}`, { content: `m${i}` })).status).toBe(200);
  let res = await a.client.post(`/api/social/messages/${cid}`, { content: "flood" });
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe("RATE_LIMITED");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  // forwarding counts too; the other person is unaffected
  const m = (await a.client.get(`/api/social/messages/${cid}`)).body.data.messages[0];
  res = await a.client.post(`/api/social/messages/${cid}/${m.id}/forward`, { toConversationId: cid });
  expect(res.status).toBe(429);
  expect((await b.client.post(`/api/social/messages/${cid}`, { content: "b is fine" })).status).toBe(200);
  server.clock.advance(61_000);
  expect((await a.client.post(`/api/social/messages/${cid}`, { content: "later" })).status).toBe(200);
  const history = (await b.client.get(`/api/social/messages/${cid}`)).body.data.messages.map((x: any) => x.content);
  expect(history).toEqual(["later", "b is fine", "m2", "m1", "m0"]);
});
