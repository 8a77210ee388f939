import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInDevices } from "../testing/auth";
import { SseClient, WsClient } from "../testing/realtime";
import { waitFor } from "../testing/wait";
import { STREAM_LIMIT_CLOSE_CODE } from "./events";

/*
 * One cookie must not hold any number of realtime streams: past limits.streamsPerSession (or
 * limits.streamsPerAccount over all the account's sessions) the oldest stream is closed, with
 * a reason the client sees: a WebSocket close code and reason, an SSE `stream:closed` event.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ "limits.streamsPerSession": 2, "limits.streamsPerAccount": 3 });
});
afterAll(() => server.stop());

/** USER's next stars:balance event, published as the domain does, to tell open streams from closed ones. */
const publishTo = (userId: number, balance: number) => server.app.events.publish(userId, "stars:balance", { balance });

const balances = (frames: { event: string; data: any }[]) =>
  frames.filter((f) => f.event === "stars:balance").map((f) => f.data.balance as number);

describe("per session", () => {
  test("a third WebSocket of one session closes the oldest with 4009 and a reason; the others stay live", async () => {
    const { user, clients } = await signedInDevices(server, 1);
    const [first, second] = [
      await WsClient.open(server.url, clients[0]!),
      await WsClient.open(server.url, clients[0]!),
    ];
    const third = await WsClient.open(server.url, clients[0]!);
    expect(await first.waitClosed()).toBe(STREAM_LIMIT_CLOSE_CODE);
    expect(first.closeReason).toBe("too many streams for this session; the oldest is closed");
    publishTo(user.id, 7);
    await second.waitFor((f) => balances(f).includes(7));
    await third.waitFor((f) => balances(f).includes(7));
    expect(second.closeCode).toBeNull();
    expect(balances(first.frames)).toEqual([]);
    second.close();
    third.close();
  });

  test("Server-Sent Events: the oldest stream gets a stream:closed event, then ends", async () => {
    const { user, clients } = await signedInDevices(server, 1);
    const first = await SseClient.open(server.url, clients[0]!);
    const second = await SseClient.open(server.url, clients[0]!);
    const third = await SseClient.open(server.url, clients[0]!);
    await first.waitEnded();
    expect(first.frames.at(-1)).toEqual({
      id: null,
      event: "stream:closed",
      data: { reason: "too-many-streams", limit: "session" },
    });
    publishTo(user.id, 8);
    await second.waitFor((f) => balances(f).includes(8));
    await third.waitFor((f) => balances(f).includes(8));
    expect(second.ended || third.ended).toBe(false);
    second.close();
    third.close();
  });

  test("WebSockets and SSE streams count together", async () => {
    const { clients } = await signedInDevices(server, 1);
    const sse = await SseClient.open(server.url, clients[0]!);
    const ws = await WsClient.open(server.url, clients[0]!);
    const newest = await WsClient.open(server.url, clients[0]!);
    await sse.waitEnded();
    expect(sse.frames.at(-1)?.event).toBe("stream:closed");
    expect(ws.closeCode).toBeNull();
    ws.close();
    newest.close();
  });
});

describe("per account", () => {
  test("a fourth stream over the account's sessions closes its oldest stream, whichever session holds it", async () => {
    const { user, clients } = await signedInDevices(server, 4);
    const streams: WsClient[] = [];
    for (const client of clients) streams.push(await WsClient.open(server.url, client));
    expect(await streams[0]!.waitClosed()).toBe(STREAM_LIMIT_CLOSE_CODE);
    expect(streams[0]!.closeReason).toBe("too many streams for this account; the oldest is closed");
    publishTo(user.id, 9);
    for (const ws of streams.slice(1)) await ws.waitFor((f) => balances(f).includes(9));
    // the signed-in session of the closed stream still works: only its stream was closed
    expect((await clients[0]!.get("/api/auth/me")).status).toBe(200);
    for (const ws of streams.slice(1)) ws.close();
  });

  test("a closed stream's place is free again: the hub keeps no count of streams that ended", async () => {
    const { clients } = await signedInDevices(server, 1);
    for (let i = 0; i < 5; i++) {
      const ws = await WsClient.open(server.url, clients[0]!);
      ws.close();
      await ws.waitClosed();
    }
    const [a, b] = [await WsClient.open(server.url, clients[0]!), await WsClient.open(server.url, clients[0]!)];
    await Bun.sleep(50);
    expect(a.closeCode).toBeNull();
    expect(b.closeCode).toBeNull();
    a.close();
    b.close();
  });
});

test("limits.streams: past the bound a new stream is refused with 503 and Retry-After; once one ends there is room again", async () => {
  const small = await startTestServer({ "limits.streams": 2 });
  try {
    const { clients } = await signedInDevices(small, 3);
    const ws = await WsClient.open(small.url, clients[0]!);
    const sse = await SseClient.open(small.url, clients[1]!);
    const refused = await clients[2]!.get("/api/realtime/events");
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(refused.headers.get("retry-after")).toBe("5");
    await expect(WsClient.open(small.url, clients[2]!)).rejects.toThrow();
    // the open streams are untouched, and the rest of the API answers
    expect(ws.closeCode).toBeNull();
    expect(sse.ended).toBe(false);
    expect((await clients[2]!.get("/api/auth/me")).status).toBe(200);
    ws.close();
    await ws.waitClosed();
    await waitFor(() => small.app.events.listenerCount() === 1, 5_000, "the closed stream to be let go");
    const later = await SseClient.open(small.url, clients[2]!);
    expect(later.ended).toBe(false);
    later.close();
    sse.close();
  } finally {
    small.stop();
  }
});
