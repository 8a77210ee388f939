import type { TestClient } from "./client";

/** Test and benchmark clients for the realtime transports, speaking real HTTP / WebSocket. */

export interface Frame {
  id: number | null;
  event: string;
  data: any;
}

/** A raw HTTP/1.1 request for a realtime endpoint, for tests that watch the wire or stop reading. */
export function rawStreamRequest(transport: "ws" | "sse", cookie: string): string {
  const head =
    transport === "ws"
      ? "GET /api/realtime/ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
      : "GET /api/realtime/events HTTP/1.1\r\nAccept: text/event-stream\r\n";
  return `${head}Host: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`;
}

/**
 * A raw TCP connection that sends REQUEST and keeps every byte answered. `stalled` stops
 * reading at once, so the kernel buffers fill and the server sees backpressure.
 */
export async function rawConnection(baseUrl: string, request: string, opts: { stalled?: boolean } = {}) {
  const chunks: Buffer[] = [];
  const state = { closed: false };
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(baseUrl).port),
    socket: {
      data(_s, chunk) {
        chunks.push(Buffer.from(chunk));
      },
      close() {
        state.closed = true;
      },
      end() {
        state.closed = true;
      },
      error() {},
    },
  });
  socket.write(request);
  if (opts.stalled) socket.pause?.();
  const bytes = () => Buffer.concat(chunks);
  return {
    socket,
    state,
    bytes,
    /** what came after the response head (frames or stream body) */
    body: () => {
      const all = bytes();
      const end = all.indexOf("\r\n\r\n");
      return end < 0 ? Buffer.alloc(0) : all.subarray(end + 4);
    },
    /** waits (bounded) until PREDICATE holds over the bytes received */
    async until(predicate: (all: Buffer) => boolean, timeoutMs = 3000): Promise<Buffer> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(bytes()) && Date.now() < deadline) await Bun.sleep(5);
      return bytes();
    },
  };
}

/** Waits until PREDICATE holds over the frames received so far (bounded by TIMEOUTMS). */
async function waitFor(
  frames: Frame[],
  predicate: (frames: Frame[]) => boolean,
  timeoutMs: number,
  what: string,
): Promise<Frame[]> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(frames)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(frames.map((f) => f.event))}`);
    await Bun.sleep(5);
  }
  return frames;
}

export class SseClient {
  readonly frames: Frame[] = [];
  comments = 0;
  ended = false;
  status = 0;
  private readonly abort = new AbortController();

  /** Opens the realtime event stream, or another SSE endpoint at OPTS.PATH. */
  static async open(
    baseUrl: string,
    client: TestClient | null,
    opts: { lastEventId?: number | string; path?: string } = {},
  ): Promise<SseClient> {
    const s = new SseClient();
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (client) headers.cookie = client.cookieHeader();
    if (opts.lastEventId !== undefined) headers["last-event-id"] = String(opts.lastEventId);
    const res = await fetch(`${baseUrl}${opts.path ?? "/api/realtime/events"}`, { headers, signal: s.abort.signal });
    s.status = res.status;
    if (res.status !== 200) {
      s.ended = true;
      await res.text();
      return s;
    }
    void s.pump(res.body!);
    return s;
  }

  private async pump(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let idx: number;
        while ((idx = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const frame: Frame = { id: null, event: "message", data: null };
          let isEvent = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) this.comments++;
            else if (line.startsWith("id: ")) frame.id = Number(line.slice(4));
            else if (line.startsWith("event: ")) frame.event = line.slice(7);
            else if (line.startsWith("data: ")) {
              frame.data = JSON.parse(line.slice(6));
              isEvent = true;
            }
          }
          if (isEvent) this.frames.push(frame);
        }
      }
    } catch {
      // aborted by close() or cut by the server
    }
    this.ended = true;
  }

  waitFor(predicate: (frames: Frame[]) => boolean, timeoutMs = 3000, what = "frames") {
    return waitFor(this.frames, predicate, timeoutMs, what);
  }

  async waitEnded(timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error("stream did not end");
      await Bun.sleep(5);
    }
  }

  close(): void {
    this.abort.abort();
  }
}

export class WsClient {
  readonly frames: Frame[] = [];
  closeCode: number | null = null;
  closeReason: string | null = null;
  private constructor(readonly ws: WebSocket) {}

  static open(baseUrl: string, client: TestClient | null, opts: { lastEventId?: number } = {}): Promise<WsClient> {
    const url = `${baseUrl.replace(/^http/, "ws")}/api/realtime/ws${opts.lastEventId !== undefined ? `?lastEventId=${opts.lastEventId}` : ""}`;
    // Bun's WebSocket client accepts headers, so the session cookie goes along like a browser's
    const ws = new WebSocket(url, { headers: client ? { cookie: client.cookieHeader() } : {} } as never);
    const c = new WsClient(ws);
    ws.onmessage = (e) => c.frames.push(JSON.parse(String(e.data)));
    return new Promise((resolve, reject) => {
      ws.onopen = () => resolve(c);
      ws.onerror = () => reject(new Error("websocket failed to open"));
      ws.onclose = (e) => {
        c.closeCode = e.code;
        reject(new Error(`websocket closed ${e.code}`));
      };
    }).then(() => {
      ws.onclose = (e) => {
        c.closeCode = e.code;
        c.closeReason = e.reason;
      };
      return c;
    });
  }

  waitFor(predicate: (frames: Frame[]) => boolean, timeoutMs = 3000, what = "frames") {
    return waitFor(this.frames, predicate, timeoutMs, what);
  }

  async waitClosed(timeoutMs = 3000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error("websocket did not close");
      await Bun.sleep(5);
    }
    return this.closeCode;
  }

  close(): void {
    this.ws.close();
  }
}
