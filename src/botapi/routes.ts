import { Elysia } from "elysia";
import type { App } from "../app";
import { findBotByToken } from "../domain/bots/service";
import { RateLimiter } from "../http/rate-limit";
import { callBotMethod } from "./dispatcher";
import { botError, forbiddenBot, toBotErrorBody } from "./errors";
import { readParams } from "./params";

/**
 * /api/bot/<TOKEN>/<method> (canonical), /api/bot<TOKEN>/<method> and /bot<TOKEN>/<method>
 * (what libraries build from an API root). Matched before routing so the Bot API keeps its
 * own envelope, status codes and limits, apart from the Client API's.
 */
const BOT_PATH = /^\/(?:api\/bot\/?|bot)(\d{1,15}(?::|%3[aA])[^/]*)\/([^/]*)\/?$/;

/** Drops null and undefined fields everywhere: the Bot API omits absent fields. */
export function omitAbsent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(omitAbsent);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = omitAbsent(v);
    return out;
  }
  return value;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export function botApiRoutes(app: App) {
  const limiter = new RateLimiter();
  return new Elysia({ name: "bot-api" }).onRequest(async ({ request }) => {
    const url = new URL(request.url);
    const m = BOT_PATH.exec(url.pathname);
    if (!m) {
      if (url.pathname.startsWith("/api/bot/")) return json(404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    let token: string;
    let method: string;
    try {
      token = decodeURIComponent(m[1]!);
      method = decodeURIComponent(m[2]!);
    } catch {
      return json(404, { ok: false, error_code: 404, description: "Not Found" });
    }
    try {
      const found = await findBotByToken(app.db, token);
      if (!found) throw botError(401, "Unauthorized");
      if (found.bot.blocked_at) throw forbiddenBot("bot was blocked by moderation");
      if (found.bot.disabled_at || found.user.disabled_at) throw forbiddenBot("bot was disabled by its owner");
      const decision = limiter.check(`bot:${found.bot.id}`, app.config["limits.botCallsPerMinute"], 60_000, app.clock.now());
      if (!decision.allowed) throw botError(429, `Too Many Requests: retry after ${decision.retryAfter}`, decision.retryAfter);
      const params = await readParams(request, url);
      const result = await callBotMethod(app, found, method, params, request.signal);
      return json(200, { ok: true, result: omitAbsent(result) });
    } catch (err) {
      const body = toBotErrorBody(err, app.log);
      const headers: Record<string, string> = {};
      if (body.parameters?.retry_after !== undefined) headers["retry-after"] = String(body.parameters.retry_after);
      return json(body.error_code, body, headers);
    }
  });
}
