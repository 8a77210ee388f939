import { Elysia } from "elysia";
import type { App } from "../app";
import { assertUsable } from "../domain/sessions/service";
import { clientIp } from "../http/client-ip";
import { SESSION_SCHEME, addSetCookies, requestContext, resolveAuth, sessionCookies } from "../http/context";
import { forbidden, serviceUnavailable, unauthorized } from "../lib/errors";
import { toIso } from "../lib/clock";
import { parseLastEventId, realtimeHub } from "./hub";
import { attachWebSocket, sseResponse, type StreamOwner } from "./transports";
import type { Connection } from "./hub";

interface WsContext {
  realtime?: { owner: StreamOwner; lastEventId: number | null; attached?: { connection: Connection; drained(): void } };
}

/**
 * Browsers send Origin with every WebSocket handshake and, unlike fetch, WebSockets are not
 * bound by CORS: a page of another site must not open a socket riding on our cookies
 * (cross-site WebSocket hijacking). Programs that send no Origin authenticate like any call.
 */
function fromThisSite(app: App, request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host === request.headers.get("host") || host === new URL(app.config.baseUrl).host;
}

/** /api/realtime/events (SSE) and /api/realtime/ws (WebSocket), cookie-authenticated. */
export function realtimeRoutes(app: App) {
  const hub = realtimeHub(app);
  return new Elysia({ name: "client-realtime" })
    .use(requestContext(app))
    .get(
      "/events",
      ({ user, session, request, server, query }) => {
        // the stream outlives Bun's idle timeout; heartbeats keep proxies from closing it
        if (hub.full()) throw serviceUnavailable();
        server?.timeout(request, 0);
        const lastEventId = parseLastEventId(
          request.headers.get("last-event-id") ?? (query as Record<string, string | undefined>).lastEventId,
        );
        return sseResponse(
          hub,
          { userId: user.id, sessionId: session.id, sessionCuid: session.cuid },
          lastEventId,
          request.signal,
        );
      },
      {
        auth: true,
        detail: {
          summary: "Live events as Server-Sent Events (Last-Event-ID or ?lastEventId= resumes)",
          responses: {
            200: {
              description: "event: <name>, id: <n>, data: JSON",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
          },
        },
      },
    )
    .ws("/ws", {
      detail: {
        summary: "Live events over a WebSocket (the preferred transport): JSON frames {event, id, data}",
        security: [{ [SESSION_SCHEME]: [] }],
      },
      async beforeHandle(context) {
        if (!fromThisSite(app, context.request)) throw forbidden("WebSocket connections from other sites are refused");
        if (hub.full()) throw serviceUnavailable();
        const found = await resolveAuth(
          app,
          context.request,
          clientIp(context.request, context.server, app.config.trustProxy),
        );
        if (!found) throw unauthorized();
        assertUsable(found.user);
        // an expired access token was renewed: the handshake response carries the new cookies
        // (the old refresh token stops working after a short grace)
        if (found.renewed) addSetCookies(context.set as never, sessionCookies(app, found.renewed));
        const query = context.query as Record<string, string | undefined>;
        (context as WsContext).realtime = {
          owner: { userId: found.user.id, sessionId: found.session.id, sessionCuid: found.session.cuid },
          lastEventId: parseLastEventId(query.lastEventId),
        };
      },
      open(ws) {
        const state = (ws.data as WsContext).realtime!;
        state.attached = attachWebSocket(hub, state.owner, state.lastEventId, ws.raw as never);
      },
      message(ws, message) {
        // application-level ping for clients that cannot send protocol pings (browsers)
        const m = message as unknown;
        if (
          m === "ping" ||
          (typeof m === "object" &&
            m !== null &&
            ((m as { event?: unknown }).event === "ping" || (m as { type?: unknown }).type === "ping"))
        ) {
          ws.send(JSON.stringify({ event: "pong", id: null, data: { time: toIso(app.clock.now()) } }));
        }
      },
      drain(ws) {
        (ws.data as WsContext).realtime?.attached?.drained();
      },
      close(ws) {
        (ws.data as WsContext).realtime?.attached?.connection.dispose();
      },
    });
}
