import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { signedInDevices } from "../../testing/auth";
import type { DeliveredEvent } from "../../realtime/broker";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const devices = (count: number) => signedInDevices(server, count);

function recordEvents(userId: number) {
  const seen: DeliveredEvent[] = [];
  const stop = server.app.events.subscribe(userId, (e) => seen.push(e));
  return { seen, stop };
}

describe("sessions", () => {
  test("lists the account's devices with the current one flagged", async () => {
    const { clients } = await devices(2);
    const res = await clients[1]!.get("/api/auth/sessions");
    expect(res.status).toBe(200);
    const list = res.body.data.sessions;
    expect(list).toHaveLength(2);
    for (const s of list) {
      expect(Object.keys(s).sort()).toEqual(["createdAt", "current", "id", "ip", "lastSeenAt", "userAgent"]);
      expect(s.ip).toBe("127.0.0.1");
      expect(new Date(s.createdAt).toISOString()).toBe(s.createdAt);
    }
    const current = list.find((s: any) => s.current);
    expect(current.userAgent).toBe("device-1/1.0");
    expect(list.filter((s: any) => s.current)).toHaveLength(1);
  });

  test("DELETE /sessions/{id} signs that device out and tells its streams", async () => {
    const { user, clients } = await devices(2);
    const [a, b] = clients as [TestClient, TestClient];
    const list = (await a.get("/api/auth/sessions")).body.data.sessions;
    const other = list.find((s: any) => !s.current);
    const events = recordEvents(user.id);
    const res = await a.delete(`/api/auth/sessions/${other.id}`);
    events.stop();
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ revoked: true, current: false });
    expect(events.seen.map((e) => [e.event, e.data])).toEqual([["session:revoked", { sessionId: other.id }]]);
    expect((await b.get("/api/auth/me")).status).toBe(401);
    expect((await a.get("/api/auth/me")).status).toBe(200);
    // already gone
    const again = await a.delete(`/api/auth/sessions/${other.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("NOT_FOUND");
  });

  test("deleting the current session signs out and clears cookies", async () => {
    const { clients } = await devices(1);
    const c = clients[0]!;
    const me = (await c.get("/api/auth/sessions")).body.data.sessions[0];
    const res = await c.delete(`/api/auth/sessions/${me.id}`);
    expect(res.body.data).toEqual({ revoked: true, current: true });
    expect(c.cookies.has("auth_access_token")).toBe(false);
    expect((await c.get("/api/auth/me")).status).toBe(401);
  });

  test("someone else's session is NOT_FOUND and stays alive", async () => {
    const mine = await devices(1);
    const theirs = await devices(1);
    const theirId = (await theirs.clients[0]!.get("/api/auth/sessions")).body.data.sessions[0].id;
    const res = await mine.clients[0]!.delete(`/api/auth/sessions/${theirId}`);
    expect(res.status).toBe(404);
    expect((await theirs.clients[0]!.get("/api/auth/me")).status).toBe(200);
    const long = await mine.clients[0]!.delete(`/api/auth/sessions/${"x".repeat(65)}`);
    expect(long.status).toBe(422);
  });

  test("revoke-others keeps only the caller", async () => {
    const { user, clients } = await devices(3);
    const events = recordEvents(user.id);
    const res = await clients[0]!.post("/api/auth/sessions/revoke-others");
    events.stop();
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ revoked: 2 });
    expect(events.seen.filter((e) => e.event === "session:revoked")).toHaveLength(2);
    expect((await clients[1]!.get("/api/auth/me")).status).toBe(401);
    expect((await clients[2]!.get("/api/auth/me")).status).toBe(401);
    const list = (await clients[0]!.get("/api/auth/sessions")).body.data.sessions;
    expect(list).toHaveLength(1);
    expect(list[0].current).toBe(true);
  });

  test("signed out, or without CSRF, the endpoints refuse", async () => {
    const anon = new TestClient(server.url);
    expect((await anon.get("/api/auth/sessions")).body.error.code).toBe("UNAUTHORIZED");
    expect((await anon.post("/api/auth/sessions/revoke-others")).status).toBe(401);
    const { clients } = await devices(1);
    const res = await clients[0]!.post("/api/auth/sessions/revoke-others", {}, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
    const del = await clients[0]!.delete("/api/auth/sessions/anything", undefined, { csrf: false });
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe("CSRF_TOKEN_INVALID");
    expect((await anon.delete("/api/auth/sessions/anything")).status).toBe(401);
  });

  test("bad session ids: oversize is 422, unknown is 404, and nothing is revoked", async () => {
    const { clients } = await devices(1);
    const c = clients[0]!;
    const huge = await c.delete(`/api/auth/sessions/${"a".repeat(65)}`);
    expect(huge.status).toBe(422);
    expect(huge.body.error.code).toBe("VALIDATION_ERROR");
    expect(huge.body.error.details.fieldErrors.id).toBeDefined();
    for (const id of ["nope", "%27%20OR%201%3D1--"]) {
      const res = await c.delete(`/api/auth/sessions/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await c.get("/api/auth/me")).status).toBe(200);
    expect((await c.get("/api/auth/sessions")).body.data.sessions).toHaveLength(1);
  });

  test("refresh rotation keeps the session in the list; last seen moves", async () => {
    const { clients } = await devices(1);
    const c = clients[0]!;
    const before = (await c.get("/api/auth/sessions")).body.data.sessions[0];
    server.clock.advance(16 * 60_000);
    const res = await c.get("/api/auth/sessions");
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((l) => l.startsWith("auth_refresh_token="))).toBe(true);
    const after = res.body.data.sessions[0];
    expect(after.id).toBe(before.id);
    expect(Date.parse(after.lastSeenAt)).toBeGreaterThan(Date.parse(before.lastSeenAt));
  });
});
