import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { waitFor } from "../testing/wait";
import { realtimeHub } from "./hub";
import { SseClient, WsClient, rawConnection, rawStreamRequest } from "../testing/realtime";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    "realtime.heartbeatSeconds": 1,
    "realtime.maxBufferedEvents": 20,
    "realtime.retentionSeconds": 60,
    // the leak check below opens dozens of streams on one session at once (stream-limits.test.ts tests the caps)
    "limits.streamsPerSession": 1000,
    "limits.streamsPerAccount": 1000,
  });
});
afterAll(() => server.stop());

type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = () => quickPerson(server);

async function chatOf(a: Person, b: Person): Promise<string> {
  return (await a.client.post(`/api/social/users/${b.user.username}/message`)).body.data.conversationId;
}
const say = (p: Person, cid: string, content: string) => p.client.post(`/api/social/messages/${cid}`, { content });
const messagesIn = (frames: { event: string; data: any }[]) =>
  frames.filter((f) => f.event === "message:new").map((f) => f.data.message.content);

describe("WebSocket", () => {
  test("delivers message:new frames {event, id, data} to both members; answers ping", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const wsA = await WsClient.open(server.url, a.client);
    const wsB = await WsClient.open(server.url, b.client);
    expect((await say(a, cid, "hello over ws")).status).toBe(200);
    const [frame] = await wsB.waitFor((f) => f.some((x) => x.event === "message:new"));
    expect(frame).toEqual({
      event: "message:new",
      id: expect.any(Number),
      data: {
        conversationId: cid,
        message: expect.objectContaining({
          content: "hello over ws",
          sender: expect.objectContaining({ username: a.user.username }),
        }),
      },
    });
    await wsA.waitFor((f) => messagesIn(f).includes("hello over ws"));
    // typing goes to the other side only
    await b.client.post(`/api/social/messages/${cid}/typing`);
    await wsA.waitFor((f) => f.some((x) => x.event === "typing" && x.data.user.username === b.user.username));
    expect(wsB.frames.some((x) => x.event === "typing")).toBe(false);
    wsA.ws.send(JSON.stringify({ event: "ping" }));
    await wsA.waitFor((f) => f.some((x) => x.event === "pong"));
    wsA.close();
    wsB.close();
  });

  test("a send's answer and its live event write the same message text, the one the history shows", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const ws = await WsClient.open(server.url, b.client);
    const raw: string[] = [];
    ws.ws.addEventListener("message", (e) => raw.push(String(e.data)));
    const sends = [
      { content: "plain" },
      { content: "bold and an id", entities: [{ type: "bold", offset: 0, length: 4 }], clientMessageId: "same-1" },
    ];
    for (const body of sends) {
      const sent = await a.client.post(`/api/social/messages/${cid}`, body);
      expect(sent.status).toBe(200);
      const message = sent.body.data.message;
      await ws.waitFor((f) => f.some((x) => x.event === "message:new" && x.data.message.id === message.id));
      const frame = ws.frames.find((x) => x.event === "message:new" && x.data.message.id === message.id)!;
      expect(raw).toContain(
        `{"event":"message:new","id":${frame.id},"data":{"conversationId":${JSON.stringify(cid)},"message":${JSON.stringify(message)}}}`,
      );
      const history = await a.client.get(`/api/social/messages/${cid}`);
      expect(history.body.data.messages.find((m: { id: string }) => m.id === message.id)).toEqual(message);
    }
    ws.close();
  });

  test("edits, deletions, reactions, read markers and group changes reach the members", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const cid = (await a.client.post("/api/social/groups", { title: "Live", members: [b.user.username] })).body.data
      .conversationId;
    const ws = await WsClient.open(server.url, b.client);
    const outsider = await WsClient.open(server.url, c.client);
    const m = (await say(a, cid, "v1")).body.data.message;
    await a.client.patch(`/api/social/messages/${cid}/${m.id}`, { content: "v2" });
    await a.client.post(`/api/social/messages/${cid}/${m.id}/reactions`, { emoji: "🔥" });
    await b.client.post(`/api/social/messages/${cid}/read`, { messageId: m.id });
    await a.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`);
    await a.client.patch(`/api/social/groups/${cid}`, { title: "Live 2" });
    await a.client.post(`/api/social/groups/${cid}/members`, { username: c.user.username });
    const frames = await ws.waitFor((f) => f.filter((x) => x.event === "chat:updated").length >= 2);
    const by = (name: string) => frames.filter((f) => f.event === name).map((f) => f.data);
    expect(by("message:edited")[0]).toMatchObject({
      conversationId: cid,
      message: { id: m.id, content: "v2", editedAt: expect.any(String) },
    });
    expect(by("message:reaction")[0]).toEqual({
      conversationId: cid,
      messageId: m.id,
      reactions: [{ emoji: "🔥", count: 1, userIds: [a.user.cuid] }],
    });
    expect(by("message:read")[0]).toEqual({ conversationId: cid, userId: b.user.cuid, messageId: m.id });
    expect(by("message:deleted")[0]).toEqual({ conversationId: cid, messageId: m.id });
    expect(by("chat:updated").map((d) => d.chat)).toEqual([
      { id: cid, type: "group", title: "Live 2", description: null, photoUrl: null, memberCount: 2 },
      { id: cid, type: "group", title: "Live 2", description: null, photoUrl: null, memberCount: 3 },
    ]);
    // the outsider saw nothing of the group until added
    const seen = await outsider.waitFor((f) => f.some((x) => x.event === "chat:updated"));
    expect(seen.filter((f) => f.event !== "chat:updated" && f.event !== "message:new")).toEqual([]);
    expect(messagesIn(seen)).not.toContain("v1");
    ws.close();
    outsider.close();
  });

  test("an expired access token is renewed on connect and the new cookies come back", async () => {
    const a = await person();
    // only the refresh token is presented, as after the 15-minute access lifetime
    a.client.cookies.delete("auth_access_token");
    const sse = await fetch(`${server.url}/api/realtime/events`, {
      headers: { cookie: `auth_refresh_token=${encodeURIComponent(a.client.cookies.get("auth_refresh_token")!)}` },
    });
    expect(sse.status).toBe(200);
    expect(sse.headers.getSetCookie().some((c) => c.startsWith("auth_access_token="))).toBe(true);
    await sse.body!.cancel();
    const b = await person();
    b.client.cookies.delete("auth_access_token");
    const raw = await rawConnection(
      server.url,
      rawStreamRequest("ws", `auth_refresh_token=${encodeURIComponent(b.client.cookies.get("auth_refresh_token")!)}`),
    );
    const head = (await raw.until((all) => all.includes("\r\n\r\n"))).toString("latin1");
    expect(head).toStartWith("HTTP/1.1 101");
    expect(head.toLowerCase()).toContain("set-cookie: auth_access_token=");
    raw.socket.end();
  });

  test("the server pings idle sockets (heartbeat every second here)", async () => {
    const a = await person();
    const raw = await rawConnection(server.url, rawStreamRequest("ws", a.client.cookieHeader()));
    // a ping frame is FIN + opcode 9 (0x89) right after the handshake
    await raw.until(() => raw.body().includes(0x89), 3500);
    expect(raw.bytes().toString("latin1")).toStartWith("HTTP/1.1 101");
    expect(raw.body()[0]).toBe(0x89);
    raw.socket.end();
  });

  test("refuses a connection without a session", async () => {
    await expect(WsClient.open(server.url, null)).rejects.toThrow();
    const res = await fetch(`${server.url}/api/realtime/ws`, {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
  });

  test("a page of another site cannot open a socket with the person's cookies; this site's pages can", async () => {
    const a = await person();
    const upgrade = {
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-version": "13",
      cookie: a.client.cookieHeader(),
    };
    for (const origin of ["https://evil.example", "null"]) {
      const res = await fetch(`${server.url}/api/realtime/ws`, { headers: { ...upgrade, origin } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    }
    const raw = await rawConnection(
      server.url,
      rawStreamRequest("ws", a.client.cookieHeader()).replace("\r\n\r\n", `\r\nOrigin: ${server.url}\r\n\r\n`),
    );
    expect((await raw.until((all) => all.includes("\r\n\r\n"))).toString("latin1")).toStartWith("HTTP/1.1 101");
    raw.socket.end();
  });

  test("resumes from ?lastEventId without losing or repeating events", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const ws = await WsClient.open(server.url, b.client);
    await say(a, cid, "one");
    const [first] = await ws.waitFor((f) => messagesIn(f).length === 1);
    ws.close();
    await ws.waitClosed();
    await say(a, cid, "two");
    await say(a, cid, "three");
    const again = await WsClient.open(server.url, b.client, { lastEventId: first!.id! });
    await say(a, cid, "four");
    await again.waitFor((f) => messagesIn(f).length === 3);
    await Bun.sleep(50);
    expect(messagesIn(again.frames)).toEqual(["two", "three", "four"]);
    const ids = again.frames.map((f) => f.id!);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    again.close();
  });

  test("signing out closes that session's socket, not the others", async () => {
    const a = await signedInClient(server);
    const other = new TestClient(server.url);
    expect((await other.login(a.user.email!, a.user.password)).status).toBe(200);
    const ws1 = await WsClient.open(server.url, a.client);
    const ws2 = await WsClient.open(server.url, other);
    expect((await a.client.post("/api/auth/logout")).status).toBe(200);
    expect(await ws1.waitClosed()).toBe(4001);
    expect(ws1.frames.at(-1)?.event).toBe("session:revoked");
    await Bun.sleep(50);
    expect(ws2.closeCode).toBeNull();
    ws2.close();
  });
});

describe("Server-Sent Events", () => {
  test("id lines, named events, heartbeat comments", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const sse = await SseClient.open(server.url, b.client);
    expect(sse.status).toBe(200);
    await say(a, cid, "over sse");
    const [frame] = await sse.waitFor((f) => f.length > 0);
    expect(frame!.event).toBe("message:new");
    expect(frame!.id).toBeGreaterThan(0);
    expect(frame!.data).toMatchObject({ conversationId: cid, message: { content: "over sse" } });
    const before = sse.comments;
    // heartbeat interval is 1 s in this server
    await waitFor(() => sse.comments > before, 3000, "a heartbeat comment");
    expect(sse.comments).toBeGreaterThan(before);
    sse.close();
  });

  test("signed-out callers get UNAUTHORIZED in the envelope", async () => {
    const res = await fetch(`${server.url}/api/realtime/events`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
  });

  test("Last-Event-ID resume loses nothing; an unknown id gets stream:reset", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const sse = await SseClient.open(server.url, b.client);
    await say(a, cid, "m1");
    const [first] = await sse.waitFor((f) => messagesIn(f).length === 1);
    sse.close();
    await sse.waitEnded();
    for (const t of ["m2", "m3", "m4"]) await say(a, cid, t);
    const resumed = await SseClient.open(server.url, b.client, { lastEventId: first!.id! });
    await say(a, cid, "m5");
    await resumed.waitFor((f) => messagesIn(f).length === 4);
    await Bun.sleep(50);
    expect(messagesIn(resumed.frames)).toEqual(["m2", "m3", "m4", "m5"]);
    resumed.close();

    const future = await SseClient.open(server.url, b.client, { lastEventId: 999_999_999 });
    const [reset] = await future.waitFor((f) => f.length > 0);
    expect(reset).toMatchObject({ event: "stream:reset", data: { reason: "unknown-id" } });
    future.close();
    // more events than an account's ring keeps: the resume reports the gap instead of a partial replay
    for (let i = 0; i < 501; i++) server.app.events.publish(b.user.id, "stars:balance", { balance: i });
    const behind = await SseClient.open(server.url, b.client, { lastEventId: first!.id! });
    const [gap] = await behind.waitFor((f) => f.length > 0);
    expect(gap).toMatchObject({ event: "stream:reset", data: { reason: "gap" } });
    server.app.events.publish(b.user.id, "stars:balance", { balance: 1000 });
    await behind.waitFor((f) => f.length === 2);
    expect(behind.frames[1]).toMatchObject({ event: "stars:balance", data: { balance: 1000 } });
    expect(behind.frames[1]!.id).toBe(gap!.id! + 1);
    behind.close();
    // junk ids are ignored like no id
    const junk = await SseClient.open(server.url, b.client, { lastEventId: "abc" });
    expect(junk.status).toBe(200);
    junk.close();
  });

  test("within the retention window a resume replays; past it the stream starts with stream:reset", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const sse = await SseClient.open(server.url, b.client);
    await say(a, cid, "seen");
    const [seen] = await sse.waitFor((f) => messagesIn(f).length === 1);
    sse.close();
    await sse.waitEnded();
    await say(a, cid, "missed while away");
    server.clock.advance(30_000);
    const soon = await SseClient.open(server.url, b.client, { lastEventId: seen!.id! });
    await soon.waitFor((f) => f.length > 0);
    expect(soon.frames.map((f) => f.event)).toEqual(["message:new"]);
    expect(messagesIn(soon.frames)).toEqual(["missed while away"]);
    soon.close();
    await soon.waitEnded();
    // 61 s after the missed message it is forgotten (the retention here is 60 s)
    server.clock.advance(31_000);
    await say(a, cid, "after the window");
    const late = await SseClient.open(server.url, b.client, { lastEventId: seen!.id! });
    const [reset] = await late.waitFor((f) => f.length > 0);
    expect(reset).toMatchObject({ event: "stream:reset", data: { reason: "gap" } });
    late.close();
  });

  test("typing is live only: never replayed, and resuming from a typing event's id works", async () => {
    const [a, b] = [await person(), await person()];
    const cid = await chatOf(a, b);
    const sse = await SseClient.open(server.url, b.client);
    await a.client.post(`/api/social/messages/${cid}/typing`);
    const [typed] = await sse.waitFor((f) => f.some((x) => x.event === "typing"));
    sse.close();
    await sse.waitEnded();
    await say(a, cid, "after typing");
    await a.client.post(`/api/social/messages/${cid}/typing`);
    const resumed = await SseClient.open(server.url, b.client, { lastEventId: typed!.id! });
    await resumed.waitFor((f) => f.length > 0);
    await Bun.sleep(50);
    expect(resumed.frames.map((f) => [f.event, f.data.message?.content])).toEqual([["message:new", "after typing"]]);
    resumed.close();
  });

  test("revoking a session from another device closes its stream", async () => {
    const a = await signedInClient(server);
    const other = new TestClient(server.url);
    await other.login(a.user.email!, a.user.password);
    const sse = await SseClient.open(server.url, a.client);
    const survivor = await SseClient.open(server.url, other);
    const sessions = (await other.get("/api/auth/sessions")).body.data.sessions as { id: string; current: boolean }[];
    const target = sessions.find((s) => !s.current)!;
    expect(sessions).toHaveLength(2);
    expect((await other.delete(`/api/auth/sessions/${target.id}`)).status).toBe(200);
    await sse.waitEnded();
    expect(sse.frames.at(-1)).toMatchObject({ event: "session:revoked", data: { sessionId: target.id } });
    // the revoked cookies no longer open a stream; the other device's stream stays open
    const again = await SseClient.open(server.url, a.client);
    expect(again.status).toBe(401);
    await Bun.sleep(50);
    expect(survivor.ended).toBe(false);
    survivor.close();
  });

  test("a session revoked behind the stream's back (no event) is closed by the periodic check", async () => {
    const a = await person();
    const sse = await SseClient.open(server.url, a.client);
    // revoked straight in the database, as another process or the CLI would
    await server.app.db
      .updateTable("sessions")
      .set({ revoked_at: server.app.clock.now() })
      .where("user_id", "=", a.user.id)
      .execute();
    await sse.waitEnded(4000);
    expect(sse.ended).toBe(true);
  });

  test("connect/disconnect cycles (SSE and WebSocket) leave no connections or listeners behind", async () => {
    const a = await person();
    const hub = realtimeHub(server.app);
    const [baseListeners, baseConnections] = [server.app.events.listenerCount(), hub.connectionCount()];
    for (let round = 0; round < 10; round++) {
      const batch = await Promise.all(Array.from({ length: 40 }, () => SseClient.open(server.url, a.client)));
      expect(batch.every((s) => s.status === 200)).toBe(true);
      if (round === 0) expect(hub.connectionCount()).toBe(baseConnections + 40);
      for (const s of batch) s.close();
      await Promise.all(batch.map((s) => s.waitEnded()));
    }
    for (let round = 0; round < 5; round++) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => WsClient.open(server.url, a.client)));
      if (round === 0) expect(server.app.events.listenerCount()).toBeGreaterThanOrEqual(baseListeners + 20);
      for (const w of batch) w.close();
      await Promise.all(batch.map((w) => w.waitClosed()));
    }
    await waitFor(
      () => server.app.events.listenerCount() === baseListeners && hub.connectionCount() === baseConnections,
      3000,
      "listeners and connections back to their base",
    );
    expect(server.app.events.listenerCount()).toBe(baseListeners);
    expect(hub.connectionCount()).toBe(baseConnections);
  });
});

describe("one event to many accounts", () => {
  test("its recipients share one id on both transports, and each resumes after it on its own", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const hub = realtimeHub(server.app);
    const before = hub.connectionCount();
    const wsA = await WsClient.open(server.url, a.client);
    const sseB = await SseClient.open(server.url, b.client);
    const wsC = await WsClient.open(server.url, c.client);
    const payload = { balance: 7 };
    server.app.events.publish([a.user.id, b.user.id, c.user.id], "stars:balance", payload);
    const isIt = (f: { event: string; data: any }) => f.event === "stars:balance" && f.data.balance === 7;
    const [fa] = (await wsA.waitFor((f) => f.some(isIt))).filter(isIt);
    const [fb] = (await sseB.waitFor((f) => f.some(isIt))).filter(isIt);
    const [fc] = (await wsC.waitFor((f) => f.some(isIt))).filter(isIt);
    expect(fa).toEqual({ event: "stars:balance", id: expect.any(Number), data: { balance: 7 } });
    expect(fb).toMatchObject({ event: "stars:balance", id: fa!.id, data: { balance: 7 } });
    expect(fc).toEqual(fa!);
    // the same payload object published again is a new event: a new id, never the cached frame
    server.app.events.publish([a.user.id, c.user.id], "stars:balance", payload);
    await wsA.waitFor((f) => f.filter(isIt).length === 2);
    expect(wsA.frames.filter(isIt)[1]!.id).toBe(fa!.id! + 1);
    wsA.close();
    wsC.close();
    sseB.close();
    await sseB.waitEnded();
    // b missed one event of its own; resuming from the shared id replays exactly that one
    server.app.events.publish(b.user.id, "stars:balance", { balance: 8 });
    const resumed = await SseClient.open(server.url, b.client, { lastEventId: fb!.id! });
    const replayed = await resumed.waitFor((f) => f.some((x) => x.event === "stars:balance"));
    await Bun.sleep(50);
    expect(resumed.frames.map((x) => [x.event, x.data])).toEqual([["stars:balance", { balance: 8 }]]);
    expect(replayed[0]!.id).toBeGreaterThan(fb!.id!);
    resumed.close();
    // the next test counts the server's connections: none of these may still be closing
    await waitFor(() => hub.connectionCount() === before, 10_000, "this test's streams to close");
  });
});

describe("slow clients", () => {
  test("a client that stops reading is cut off; others keep receiving", async () => {
    const [a, b] = [await person(), await person()];
    const hub = realtimeHub(server.app);
    const baseCount = hub.connectionCount();
    const sseStall = await rawConnection(server.url, rawStreamRequest("sse", b.client.cookieHeader()), {
      stalled: true,
    });
    const wsStall = await rawConnection(server.url, rawStreamRequest("ws", b.client.cookieHeader()), { stalled: true });
    const healthy = await WsClient.open(server.url, a.client);
    await waitFor(() => hub.connectionCount() >= baseCount + 3, 3000, "three connections");
    expect(hub.connectionCount()).toBe(baseCount + 3);
    const big = "x".repeat(16 * 1024);
    // bounded: at most 4000 × 16 KB, stops as soon as both stalled clients are cut off
    for (let i = 0; i < 4000 && hub.connectionCount() > baseCount + 1; i++) {
      server.app.events.publish([b.user.id, a.user.id], "typing", {
        conversationId: big,
        user: { id: String(i), username: "load" },
      });
      if (i % 20 === 0) await Bun.sleep(1);
    }
    expect(hub.connectionCount()).toBe(baseCount + 1);
    // the server really let go of the stalled SSE socket (its queue is dropped, not kept)
    sseStall.socket.resume?.();
    await waitFor(() => sseStall.state.closed, 3000, "the stalled SSE socket to close");
    await healthy.waitFor((f) => f.filter((x) => x.event === "typing").length > 0);
    expect(healthy.closeCode).toBeNull();
    healthy.close();
    sseStall.socket.end();
    wsStall.socket.end();
  });
});
