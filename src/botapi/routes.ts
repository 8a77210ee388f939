import type { App } from "../app";
import { botAccessError, resolveBotToken, type BotWithUser } from "../domain/bots/service";
import { uploadVisibleToBot } from "../domain/bots/files";
import { storedFileResponse } from "../media/serve";
import type { RateLimiter } from "../lib/rate-limit";
import { rateLimiter } from "../cluster/counters";
import { callBotMethod, canonicalMethodName } from "./dispatcher";
import { metricsFor } from "../ops/metrics";
import { botError, toBotErrorBody } from "./errors";
import { readParams, type Params } from "./params";
import { botLogOf, describeUpdate, loggable, loggableParams } from "../domain/bots/log";
import { omitAbsent } from "./serializers";
import type { BeforeRouting } from "../http/server";
import { holdRefusal, refusalHoldMs } from "../domain/bots/updates";
import { DescribedResult } from "./context";

/**
 * /api/bot/<TOKEN>/<method> (canonical), /api/bot<TOKEN>/<method> and /bot<TOKEN>/<method>
 * (what libraries build from an API root; from a root ending in "/" they start with "//").
 * Matched before routing so the Bot API keeps its own envelope, status codes and limits,
 * apart from the Client API's. /api/bots and /bots are not token paths.
 */
const BOT_PREFIX = /^\/\/?(?:api\/bot\/|api\/bot(?=\d)|bot(?!s(?:\/|$)))/;
const BOT_PATH = new RegExp(`${BOT_PREFIX.source}([^/]*)\\/([^/]*)\\/?$`);
/** What the compatible API accepts as a token; anything else on a token path is its 404. */
const TOKEN_SHAPE = /^\d{1,16}:[^/]*$/;

/** The download route of getFile: /file/bot<TOKEN>/<file_path>. */
const FILE_PATH = /^\/\/?file\/bot([^/]+)\/([^/]+)$/;

/** Path parts are rarely escaped: only those with a % are decoded (throws on a bad escape). */
const decodePart = (part: string): string => (part.includes("%") ? decodeURIComponent(part) : part);

const JSON_HEADERS: Record<string, string> = { "content-type": "application/json" };

const json = (status: number, body: unknown, headers?: Record<string, string>) =>
  new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });

const notFoundBody = { ok: false, error_code: 404, description: "Not Found" };

/** A resolved, usable bot for TOKEN, or the Bot API error for it (401, 403, 429). */
async function authorisedBot(app: App, limiter: RateLimiter, token: string): Promise<BotWithUser> {
  const found = await resolveBotToken(app, token);
  if (!found) throw botError(401, "Unauthorized");
  const refused = botAccessError(found, found.bot.token_secret_hash);
  if (refused) throw refused;
  // at once where calls are counted in memory (one node)
  let decision = limiter.checkNow(
    `bot:${found.bot.id}`,
    app.config["limits.botCallsPerMinute"],
    60_000,
    app.clock.now(),
  );
  if (decision instanceof Promise) decision = await decision;
  if (!decision.allowed)
    throw botError(429, `Too Many Requests: retry after ${decision.retryAfter}`, decision.retryAfter);
  return found;
}

const errorResponse = (app: App, err: unknown): Response => bodyResponse(toBotErrorBody(err, app.log));

function bodyResponse(body: ReturnType<typeof toBotErrorBody>): Response {
  const retryAfter = body.parameters?.retry_after;
  return json(body.error_code, body, retryAfter === undefined ? undefined : { "retry-after": String(retryAfter) });
}

/** GET /file/bot<TOKEN>/<file_path>: a file the bot sent or received (getFile), else 404. */
async function downloadFile(
  app: App,
  limiter: RateLimiter,
  token: string,
  key: string,
  request: Request,
): Promise<Response> {
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

/**
 * The Bot API, answered before routing (the root's front door, http/server.ts, calls it with
 * every request's path but the Client API's): a Response for token and file paths, else undefined.
 */
export function botApiBeforeRouting(app: App): BeforeRouting {
  const limiter = rateLimiter(app, "botapi");
  const metrics = metricsFor(app);
  const answer = async (request: Request, path: string): Promise<Response | undefined> => {
    const file = FILE_PATH.exec(path);
    if (file) return downloadFile(app, limiter, file[1]!, file[2]!, request);
    const m = BOT_PATH.exec(path);
    if (!m) {
      if (BOT_PREFIX.test(path)) return json(404, notFoundBody);
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
    const started = performance.now();
    // known once the bot is usable: refused tokens (wrong, disabled, rate-limited) are only counted
    let botId: number | null = null;
    let params: Params | null = null;
    try {
      const found = await authorisedBot(app, limiter, token);
      botId = found.bot.id;
      params = await readParams(request);
      const answered = await callBotMethod(app, found, method, params, request.signal);
      const described = answered instanceof DescribedResult;
      const result = omitAbsent(described ? answered.result : answered);
      metrics.countBotCall(canonicalMethodName(method) ?? "unknown", "200");
      logCall(app, botId, method, params, performance.now() - started, { result });
      return json(200, described ? { ok: true, result, description: answered.description } : { ok: true, result });
    } catch (err) {
      const body = toBotErrorBody(err, app.log);
      metrics.countBotCall(canonicalMethodName(method) ?? "unknown", String(body.error_code));
      if (botId !== null)
        logCall(app, botId, method, params, performance.now() - started, {
          error: { code: body.error_code, description: body.description },
        });
      const refusal =
        body.error_code === 429
          ? "flood"
          : body.error_code === 409 && canonicalMethodName(method) === "getUpdates"
            ? "poll-conflict"
            : null;
      const holdMs = refusal ? refusalHoldMs(app, botId, refusal) : 0;
      if (holdMs > 0) await holdRefusal(app, holdMs, request.signal);
      return bodyResponse(body);
    }
  };
  return (request, path) =>
    // every request but the Client API's passes here: the rest of them leave after four comparisons
    path.startsWith("/bot") || path.startsWith("/api/bot") || path.startsWith("/file/bot") || path.startsWith("//")
      ? answer(request, path)
      : undefined;
}

/** One call in the bot's developer log; getUpdates also logs each update it handed over. */
function logCall(
  app: App,
  botId: number,
  method: string,
  params: Params | null,
  ms: number,
  outcome: { result: unknown } | { error: { code: number; description: string } },
): void {
  const log = botLogOf(app);
  const ok = "result" in outcome;
  const entry = {
    kind: "call" as const,
    method,
    params: params ? loggableParams(params.values, params.files) : undefined,
    ok,
    ...(ok ? { result: undefined as unknown } : { error: outcome.error }),
    ms: Math.round(ms * 10) / 10,
  };
  // a single object (a sent message) is made loggable only if someone reads the log; a list
  // (getUpdates' updates) is cut to its first items now, not kept whole until then
  if (ok && !Array.isArray(outcome.result)) log.add(botId, entry, () => ({ result: loggable(outcome.result) }));
  else log.add(botId, ok ? { ...entry, result: loggable(outcome.result) } : entry);
  if (ok && Array.isArray(outcome.result) && canonicalMethodName(method) === "getUpdates") {
    for (const update of outcome.result as Array<Record<string, unknown>>) {
      log.add(botId, { kind: "update", method: "getUpdates", ok: true, update: describeUpdate(update) });
    }
  }
}
