import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setDisabled } from "../../domain/users/service";
import { signedInClient } from "../../testing/fixtures";
import { TestClient } from "../../testing/client";
import { startTestServer, type TestServer } from "../../testing/server";

let server: TestServer;
beforeAll(async () => void (server = await startTestServer()));
afterAll(() => server.stop());

const IDENTITY = { name: "socialctl", description: "", rules: [], contact: "", registration: "open" };

describe("GET /api/start", () => {
  test("signed out: a CSRF token that writes accept, the instance, no account and no counts", async () => {
    const client = new TestClient(server.url);
    const res = await client.get("/api/start");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      captchaRequired: false,
      registration: "open",
      instance: IDENTITY,
      account: null,
      unread: null,
    });
    expect(res.body.data.csrfToken).toBe(client.cookies.get("csrf_token"));
    // the token is the one a write takes (what GET /api/auth/csrf would have given)
    client.csrf = res.body.data.csrfToken;
    const login = await client.post("/api/auth/login", { email: "nobody@example.test", password: "wrong one" });
    expect(login.body.error.code).toBe("INVALID_CREDENTIALS");
  });

  test("signed in: the account as GET /api/auth/me gives it, and the header's unread counts", async () => {
    const { client, user } = await signedInClient(server);
    const other = await signedInClient(server);
    const empty = await client.get("/api/start");
    expect(empty.body.data.account).toEqual((await client.get("/api/auth/me")).body.data.account);
    expect(empty.body.data.unread).toEqual({ chats: 0, notifications: 0 });

    const cid = (await other.client.post(`/api/social/users/${user.username}/message`, {})).body.data.conversationId;
    expect((await other.client.post(`/api/social/messages/${cid}`, { content: "hi" })).status).toBe(200);
    expect((await other.client.post(`/api/social/users/${user.username}/follow`)).status).toBe(200);
    const res = await client.get("/api/start");
    expect(res.body.data.unread).toEqual({
      chats: (await client.get("/api/social/messages/unread")).body.data.unreadChats,
      notifications: (await client.get("/api/social/notifications?limit=1&unread=true")).body.data.unseenCount,
    });
    expect(res.body.data.unread).toEqual({ chats: 1, notifications: 1 });
  });

  test("a disabled account's session reads as signed out, not as an error", async () => {
    const { client, user } = await signedInClient(server);
    await setDisabled(server.app.db, server.clock.now(), user.id, true);
    const res = await client.get("/api/start");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ account: null, unread: null, instance: IDENTITY });
  });

  test("is in the OpenAPI document as a public route", async () => {
    const spec = (await new TestClient(server.url).get("/api/openapi.json")).body;
    const op = spec.paths["/api/start"].get;
    expect(op.security ?? []).toEqual([]);
    expect(JSON.stringify(op.responses["200"])).toContain("unread");
  });
});
