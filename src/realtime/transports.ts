import type { ServerWebSocket } from "bun";
import { payloadJsonOf, type DeliveredEvent } from "./broker";
import type { CloseReason, Connection, RealtimeHub } from "./hub";
import { STREAM_LIMIT_CLOSE_CODE, type RealtimeEvents } from "./events";

const encoder = new TextEncoder();

/** The frames of one event, written once whatever the number of connections that carry it. */
interface Frames {
  id: number;
  event: string;
  json?: string;
  ws?: string;
  sse?: Uint8Array;
}

/**
 * One publish hands the same payload object, under one id, to every recipient (see the
 * carriers), so its frames are built once and shared: fan-out to 10,000 connections writes one
 * string (or one byte array) 10,000 times instead of serializing 10,000 times. Keyed by the
 * payload; the id and name are checked because the same object may be published again.
 */
const frameCache = new WeakMap<object, Frames>();
function framesOf(e: DeliveredEvent): Frames {
  const data = e.data as unknown;
  if (typeof data !== "object" || data === null) return { id: e.id, event: e.event };
  let frames = frameCache.get(data);
  if (frames === undefined || frames.id !== e.id || frames.event !== e.event)
    frameCache.set(data, (frames = { id: e.id, event: e.event }));
  return frames;
}

function payloadJson(frames: Frames, e: DeliveredEvent): string {
  return (frames.json ??= payloadJsonOf(e.data));
}

/** The SSE frame of E: `id:` for Last-Event-ID resume, `event:` the name, `data:` the JSON payload. */
function sseFrame(e: DeliveredEvent): Uint8Array {
  const frames = framesOf(e);
  return (frames.sse ??= encoder.encode(`id: ${e.id}\nevent: ${e.event}\ndata: ${payloadJson(frames, e)}\n\n`));
}

/** The WebSocket frame of E: `{event, id, data}`. */
function wsFrame(e: DeliveredEvent): string {
  const frames = framesOf(e);
  return (frames.ws ??= `{"event":${JSON.stringify(e.event)},"id":${e.id},"data":${payloadJson(frames, e)}}`);
}

const STREAM_LIMIT_OF = {
  "too-many-session-streams": "session",
  "too-many-account-streams": "account",
} as const satisfies Partial<Record<CloseReason, RealtimeEvents["stream:closed"]["limit"]>>;

/** The SSE frame telling a client its stream is closed for newer ones; without an id, as it is no event to resume from. */
const streamClosedFrame = (limit: RealtimeEvents["stream:closed"]["limit"]): Uint8Array =>
  encoder.encode(
    `event: stream:closed\ndata: ${JSON.stringify({ reason: "too-many-streams", limit } satisfies RealtimeEvents["stream:closed"])}\n\n`,
  );

export interface StreamOwner {
  userId: number;
  sessionId: number;
  sessionCuid: string;
}

/**
 * Server-Sent Events response attached to the hub. The stream is pulled by the socket
 * writer, so events the client has not taken stay in this stream's queue, where the hub
 * sees them (a client too far behind is cut off and resumes with Last-Event-ID).
 */
export function sseResponse(
  hub: RealtimeHub,
  owner: StreamOwner,
  lastEventId: number | null,
  signal: AbortSignal,
): Response {
  let connection: Connection | null = null;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    connection?.dispose();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        // reconnect quickly; the comment makes proxies and clients see the stream open at once
        c.enqueue(encoder.encode("retry: 3000\n: connected\n\n"));
        connection = hub.connect({
          ...owner,
          lastEventId,
          sink: {
            send: (e) => {
              if (!ended) controller.enqueue(sseFrame(e));
            },
            heartbeat: () => {
              if (!ended) controller.enqueue(encoder.encode(": ping\n\n"));
            },
            behind: (limit) => (controller.desiredSize ?? 0) < -limit,
            close: (reason) => {
              const wasEnded = ended;
              end();
              if (wasEnded) return;
              // a slow client's queue is dropped at once; others get what was already written
              if (reason === "too-slow") return controller.error();
              const limit = STREAM_LIMIT_OF[reason as keyof typeof STREAM_LIMIT_OF];
              if (limit) controller.enqueue(streamClosedFrame(limit));
              controller.close();
            },
          },
        });
        if (signal.aborted) end();
        else signal.addEventListener("abort", end, { once: true });
      },
      cancel: end,
    },
    // nothing is buffered ahead of the socket: desiredSize goes negative as the client lags
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

/**
 * Attaches an open WebSocket to the hub. Frames Bun could not write at once (send() → -1)
 * count as backlog until the socket drains; call the returned `drained` from the drain handler.
 */
export function attachWebSocket(
  hub: RealtimeHub,
  owner: StreamOwner,
  lastEventId: number | null,
  ws: ServerWebSocket<unknown>,
): { connection: Connection; drained(): void } {
  let backlog = 0;
  let dropped = false;
  const connection = hub.connect({
    ...owner,
    lastEventId,
    sink: {
      send: (e) => {
        const status = ws.send(wsFrame(e));
        // -1: queued behind a full socket; 0: dropped (closing or hopelessly backed up)
        if (status === -1) backlog++;
        else if (status === 0) dropped = true;
      },
      heartbeat: () => {
        ws.ping();
      },
      behind: (limit) => dropped || backlog > limit,
      close: (reason) => {
        if (reason === "revoked") ws.close(4001, "session revoked");
        else if (reason === "too-slow") ws.close(4008, "too far behind; reconnect with lastEventId");
        else if (reason === "shutdown") ws.close(1001, "server shutting down");
        else
          ws.close(
            STREAM_LIMIT_CLOSE_CODE,
            `too many streams for this ${STREAM_LIMIT_OF[reason]}; the oldest is closed`,
          );
      },
    },
  });
  return {
    connection,
    drained: () => {
      if (ws.getBufferedAmount() === 0) backlog = 0;
    },
  };
}
