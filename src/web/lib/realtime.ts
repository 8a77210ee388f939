import { signal } from "@preact/signals";
import {
  STREAM_LIMIT_CLOSE_CODE,
  realtimeEventNames,
  type RealtimeEventName,
  type RealtimeEvents,
} from "../../realtime/events";

/**
 * The one realtime connection of the app: a WebSocket to /api/realtime/ws, or Server-Sent
 * Events from /api/realtime/events where WebSockets do not get through (some proxies).
 * Either way it resumes from the last event id it saw, so nothing is lost across a
 * reconnect; when the server no longer has those events it sends `stream:reset` and the
 * screens refetch. Reconnects back off from 0.5 s to 30 s, and at once when the browser
 * comes back online. A stream the server closed for newer ones of the same session or account
 * (too many windows open) stays closed until this window is used again.
 */

export type ConnectionState = "idle" | "connecting" | "open" | "reconnecting" | "paused" | "closed";

/** Shown in the shell when the connection is lost. */
export const connectionState = signal<ConnectionState>("idle");

type Handler<E extends RealtimeEventName> = (data: RealtimeEvents[E]) => void;
const known = new Set<string>(realtimeEventNames);
const handlers = new Map<string, Set<(data: unknown) => void>>();

/** Subscribes to one event; returns the unsubscribe function (for useEffect cleanups). */
export function onRealtime<E extends RealtimeEventName>(event: E, handler: Handler<E>): () => void {
  let set = handlers.get(event);
  if (!set) handlers.set(event, (set = new Set()));
  set.add(handler as (data: unknown) => void);
  return () => set!.delete(handler as (data: unknown) => void);
}

/**
 * Runs FN once, when the connection next opens: a count read before it opened (the app's start)
 * misses what happened in between, as the stream resumes from nothing on its first connection.
 * Returns the cancel function.
 */
export function onceConnected(fn: () => void): () => void {
  let done = false;
  const off = connectionState.subscribe((state) => {
    if (state !== "open" || done) return;
    done = true;
    queueMicrotask(() => off());
    fn();
  });
  return () => {
    done = true;
    off();
  };
}

function dispatch(event: string, id: string | null, data: unknown) {
  // an event name this client does not know is dropped, as the protocol says
  if (!known.has(event)) return;
  if (id) lastEventId = id;
  for (const h of handlers.get(event) ?? []) {
    try {
      h(data);
    } catch (err) {
      console.error(`realtime handler for ${event} failed`, err);
    }
  }
}

let lastEventId: string | null = null;
let transport: "ws" | "sse" = "ws";
let socket: WebSocket | null = null;
let source: EventSource | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let pingTimer: ReturnType<typeof setInterval> | null = null;
let pongDue: ReturnType<typeof setTimeout> | null = null;
let attempt = 0;
let failedWsOpens = 0;
let wanted = false;
let checkSession: (() => void) | null = null;

const PING_EVERY_MS = 25_000;
const PONG_WITHIN_MS = 10_000;

/**
 * Opens the connection (signed in). RECHECK asks the API whether the session still holds:
 * run when the server closes the stream for good (sign-out elsewhere) and when reconnects
 * keep failing (an expired session fails the handshake without saying why).
 */
export function startRealtime(recheck: () => void): void {
  checkSession = recheck;
  if (wanted) return;
  wanted = true;
  attempt = 0;
  connect();
}

/** Closes the connection (sign-out) and forgets the resume point. */
export function stopRealtime(): void {
  wanted = false;
  teardown();
  lastEventId = null;
  connectionState.value = "idle";
}

function teardown() {
  if (retryTimer) clearTimeout(retryTimer);
  if (pingTimer) clearInterval(pingTimer);
  if (pongDue) clearTimeout(pongDue);
  retryTimer = pingTimer = pongDue = null;
  if (socket) {
    socket.onclose = socket.onerror = socket.onmessage = socket.onopen = null;
    socket.close();
    socket = null;
  }
  source?.close();
  source = null;
}

function resumeQuery(): string {
  return lastEventId ? `?lastEventId=${encodeURIComponent(lastEventId)}` : "";
}

function connect() {
  teardown();
  if (!wanted) return;
  connectionState.value = attempt === 0 && connectionState.value !== "reconnecting" ? "connecting" : "reconnecting";
  if (transport === "ws") connectWebSocket();
  else connectEventSource();
}

function opened() {
  attempt = 0;
  connectionState.value = "open";
}

function connectWebSocket() {
  const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/api/realtime/ws${resumeQuery()}`;
  let ws: WebSocket;
  try {
    ws = new WebSocket(url);
  } catch {
    // a policy or an extension that forbids WebSockets outright: use Server-Sent Events
    transport = "sse";
    return scheduleReconnect();
  }
  socket = ws;
  let wasOpen = false;
  ws.onopen = () => {
    wasOpen = true;
    failedWsOpens = 0;
    opened();
    // browsers answer protocol pings silently; an app-level ping notices a dead connection
    pingTimer = setInterval(() => {
      ws.send(JSON.stringify({ event: "ping" }));
      pongDue ??= setTimeout(() => ws.close(), PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  };
  ws.onmessage = (e) => {
    let frame: { event?: string; id?: string | number | null; data?: unknown };
    try {
      frame = JSON.parse(String(e.data));
    } catch {
      return;
    }
    if (frame.event === "pong") {
      if (pongDue) clearTimeout(pongDue);
      pongDue = null;
      return;
    }
    if (frame.event) dispatch(frame.event, frame.id == null ? null : String(frame.id), frame.data);
  };
  ws.onclose = (e) => {
    socket = null;
    // 4001: this session was signed out or revoked; reconnecting cannot help
    if (e.code === 4001) return ended();
    if (e.code === STREAM_LIMIT_CLOSE_CODE) return paused();
    // a socket that never opened twice in a row: try Server-Sent Events instead
    if (!wasOpen && ++failedWsOpens >= 2) transport = "sse";
    scheduleReconnect();
  };
}

function connectEventSource() {
  const es = new EventSource(`/api/realtime/events${resumeQuery()}`, { withCredentials: true });
  source = es;
  es.onopen = opened;
  for (const name of realtimeEventNames) {
    es.addEventListener(name, (e) => {
      const m = e as MessageEvent;
      let data: unknown = null;
      try {
        data = JSON.parse(String(m.data));
      } catch {
        return;
      }
      dispatch(name, m.lastEventId || null, data);
    });
  }
  es.addEventListener("stream:closed", paused);
  es.onerror = () => {
    // EventSource retries by itself but without our backoff, and gives up on a 401: take over
    es.close();
    source = null;
    scheduleReconnect();
  };
}

const RESUME_ON = ["focus", "pointerdown", "keydown"] as const;

/**
 * The server closed this window's stream for newer ones of the session or account. Reconnecting
 * at once would close another window's stream, and that one would do the same: this one waits
 * until the person comes back to it, then takes a stream again (closing the oldest elsewhere).
 */
function paused() {
  teardown();
  connectionState.value = "paused";
  const resume = () => {
    if (document.visibilityState !== "visible") return;
    document.removeEventListener("visibilitychange", resume);
    for (const name of RESUME_ON) removeEventListener(name, resume);
    if (!wanted || connectionState.value !== "paused") return;
    attempt = 0;
    connect();
  };
  document.addEventListener("visibilitychange", resume);
  for (const name of RESUME_ON) addEventListener(name, resume);
}

function ended() {
  wanted = false;
  teardown();
  connectionState.value = "closed";
  checkSession?.();
}

function scheduleReconnect() {
  if (!wanted) return;
  if (pingTimer) clearInterval(pingTimer);
  pingTimer = null;
  connectionState.value = "reconnecting";
  const delay = Math.min(30_000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
  attempt++;
  if (attempt === 3) checkSession?.();
  retryTimer = setTimeout(connect, delay);
}

addEventListener("online", () => {
  if (wanted && connectionState.value !== "open") {
    attempt = 0;
    connect();
  }
});
