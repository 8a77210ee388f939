import { Elysia } from "elysia";
import type { App } from "../app";
import { botAccessError, resolveBotToken, type BotWithUser } from "../domain/bots/service";
import { uploadVisibleToBot } from "../domain/bots/files";
import { storedFileResponse } from "../media/serve";
import { RateLimiter } from "../http/rate-limit";
import { callBotMethod, canonicalMethodName } from "./dispatcher";
import { metricsFor } from "../ops/metrics";
import { botError, toBotErrorBody } from "./errors";
import { readParams } from "./params";
import { omitAbsent } from "./serializers";

/**
 * /api/bot/<TOKEN>/<method> (canonical), /api/bot<TOKEN>/<method> and /bot<TOKEN>/<method>
 * (what libraries build from an API root). Matched before routing so the Bot API keeps its
 * own envelope, status codes and limits, apart from the Client API's. /api/bots and /bots are
 * not token paths.
 */
const BOT_PREFIX = /^\/(?:api\/bot\/|api\/bot(?=\d)|bot(?!s(?:\/|$)))/;
const BOT_PATH = new RegExp(`${BOT_PREFIX.source}([^/]*)\\/([^/]*)\\/?$`);
/** What the compatible API accepts as a token; anything else on a token path is its 404. */
const TOKEN_SHAPE = /^\d{1,16}:[^/]*$/;

/** The download route of getFile: /file/bot<TOKEN>/<file_path>. */
const FILE_PATH = /^\/file\/bot([^/]+)\/([^/]+)$/;

/** Path parts are rarely escaped: only those with a % are decoded (throws on a bad escape). */
const decodePart = (part: string): string => (part.includes("%") ? decodeURIComponent(part) : part);

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const notFoundBody = { ok: false, error_code: 404, description: "Not Found" };

/** A resolved, usable bot for TOKEN, or the Bot API error for it (401, 403, 429). */
async function authorisedBot(app: App, limiter: RateLimiter, token: string): Promise<BotWithUser> {
  const found = await resolveBotToken(app, token);
  if (!found) throw botError(401, "Unauthorized");
  const refused = botAccessError(found, found.bot.token_secret_hash);
  if (refused) throw refused;
  const decision = limiter.check(`bot:${found.bot.id}`, app.config["limits.botCallsPerMinute"], 60_000, app.clock.now());
  if (!decision.allowed) throw botError(429, `Too Many Requests: retry after ${decision.retryAfter}`, decision.retryAfter);
  return found;
}

function errorResponse(app: App, err: unknown): Response {
  const body = toBotErrorBody(err, app.log);
  const headers: Record<string, string> = {};
  if (body.parameters?.retry_after !== undefined) headers["retry-after"] = String(body.parameters.retry_after);
  return json(body.error_code, body, headers);
}

/** GET /file/bot<TOKEN>/<file_path>: a file the bot sent or received (getFile), else 404. */
async function downloadFile(app: App, limiter: RateLimiter, token: string, key: string, request: Request): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return json(404, notFoundBody);
  try {
    const found = await authorisedBot(app, limiter, decodePart(token));
    const upload = await uploadVisibleToBot(app.db, found.user.id, key);
    return (upload && (await storedFileResponse(app, key, request))) || json(404, notFoundBody);
  } catch (err) {
    if (err instanceof URIError) return json(404, notFoundBody);
    return errorResponse(app, err);
  }
}

export function botApiRoutes(app: App) {
  const limiter = new RateLimiter();
  const metrics = metricsFor(app);
  return new Elysia({ name: "bot-api" }).onRequest(async ({ request }) => {
    const url = new URL(request.url);
    const file = FILE_PATH.exec(url.pathname);
    if (file) return downloadFile(app, limiter, file[1]!, file[2]!, request);
    const m = BOT_PATH.exec(url.pathname);
    if (!m) {
      if (BOT_PREFIX.test(url.pathname)) return json(404, notFoundBody);
      return;
    }
    let token: string;
    let method: string;
    try {
      token = decodePart(m[1]!);
      method = decodePart(m[2]!);
      if (!TOKEN_SHAPE.test(token)) throw new URIError("not a token");
    } catch {
      return json(404, notFoundBody);
    }
    try {
      const found = await authorisedBot(app, limiter, token);
      const params = await readParams(request, url);
      const result = await callBotMethod(app, found, method, params, request.signal);
      metrics.botCalls.inc({ method: canonicalMethodName(method) ?? "unknown", code: "200" });
      return json(200, { ok: true, result: omitAbsent(result) });
    } catch (err) {
      const res = errorResponse(app, err);
      metrics.botCalls.inc({ method: canonicalMethodName(method) ?? "unknown", code: String(res.status) });
      return res;
    }
  });
}
