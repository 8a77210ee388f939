import { Elysia, t } from "elysia";
import ipaddr from "ipaddr.js";
import type { App } from "../app";
import { botLogOf, BOT_LOG_ENTRIES, type BotLog } from "../domain/bots/log";
import { findBotByUsername } from "../domain/bots/service";
import { clientIp } from "../http/client-ip";
import { ok } from "../http/envelope";
import { hmacSha256, safeEqual } from "../lib/crypto";
import { forbidden, notFound, unauthorized } from "../lib/errors";

/** SSE heartbeat, so proxies keep an idle log stream open. */
const HEARTBEAT_MS = 15_000;
/** Entries a follower may fall behind before its stream is ended (it reconnects with `after`). */
const MAX_QUEUED = 1000;

/**
 * The bearer token of the operator's log endpoint: derived from the instance secret
 * (`data/secret`), so whoever may read the data dir (the CLI beside the server) has it and
 * nobody else does; it changes only with the secret.
 */
export const operatorLogToken = (secret: string): string => hmacSha256(secret, "socialctl bot log");

/**
 * A bot's developer log as JSON (`{entries, limit}`, entries after AFTER) or, with FOLLOW, as
 * Server-Sent Events: the kept entries first, then each new one (`id:` = entry id, `event:
 * entry`), with `: ping` comments; a follower that falls far behind is cut off and resumes
 * with `after` (or Last-Event-ID).
 */
export function botLogResponse(
  log: BotLog,
  botId: number,
  opts: { after: number; follow: boolean; signal: AbortSignal },
): Response | ReturnType<typeof ok> {
  if (!opts.follow) return ok({ entries: log.entries(botId, opts.after), limit: BOT_LOG_ENTRIES });
  const encoder = new TextEncoder();
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let ended = false;
        const write = (text: string) => {
          if (!ended) controller.enqueue(encoder.encode(text));
        };
        const end = (tooSlow = false) => {
          if (ended) return;
          ended = true;
          stop();
          try {
            // a follower far behind loses its queue at once; others get what was written
            if (tooSlow) controller.error(new Error("too far behind"));
            else controller.close();
          } catch {
            // already closed by the client
          }
        };
        const send = (e: { id: number }) => {
          // nothing is buffered ahead of the socket: desiredSize goes negative as the client lags
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED) return end(true);
          write(`id: ${e.id}\nevent: entry\ndata: ${JSON.stringify(e)}\n\n`);
        };
        // the comment starts the body at once, so clients and proxies see the stream open
        write("retry: 3000\n: connected\n\n");
        const unfollow = log.follow(botId, { entry: send, end: () => end() });
        const ping = setInterval(() => write(": ping\n\n"), HEARTBEAT_MS);
        stop = () => {
          unfollow();
          clearInterval(ping);
        };
        for (const e of log.entries(botId, opts.after)) send(e);
        if (opts.signal.aborted) end();
        else opts.signal.addEventListener("abort", () => end(), { once: true });
      },
      cancel: () => stop(),
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

/** `after` from the query, or the SSE Last-Event-ID a reconnecting client sends. */
export function afterFrom(query: { after?: number }, request: Request): number {
  const header = Number(request.headers.get("last-event-id"));
  return query.after ?? (Number.isSafeInteger(header) && header > 0 ? header : 0);
}

export const LogQuery = t.Object({ after: t.Optional(t.Numeric({ minimum: 0 })) });

const isLoopback = (ip: string): boolean => {
  try {
    const addr = ipaddr.process(ip);
    return addr.range() === "loopback";
  } catch {
    return false;
  }
};

/**
 * /api/ops/bots/{username}/log[/stream]: the same log for `socialctl bot log` beside the
 * server. Only from a loopback address (the socket's, whatever X-Forwarded-For says) and
 * with `Authorization: Bearer <operatorLogToken>`; a reverse proxy on the same machine also
 * connects from loopback, so the token is what keeps it private.
 */
export function operatorLogRoutes(app: App) {
  const expected = operatorLogToken(app.secret);
  const authorise = (request: Request, server: Parameters<typeof clientIp>[1]) => {
    if (!isLoopback(clientIp(request, server, false)))
      throw forbidden("the operator log is served to loopback clients only");
    const given = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!safeEqual(given, expected)) throw unauthorized();
  };
  const bot = async (username: string) => {
    const found = await findBotByUsername(app.db, username);
    if (!found) throw notFound("Bot not found");
    return found.bot.id;
  };
  const routes = new Elysia({ name: "operator-bot-log", prefix: "/api/ops/bots/:username" });
  for (const [path, follow] of [
    ["/log", false],
    ["/log/stream", true],
  ] as const) {
    routes.get(
      path,
      async ({ params, query, request, server }) => {
        authorise(request, server);
        return botLogResponse(botLogOf(app), await bot(params.username), {
          after: afterFrom(query, request),
          follow,
          signal: request.signal,
        });
      },
      { query: LogQuery },
    );
  }
  return routes;
}
