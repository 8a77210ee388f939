import { describeEngineError, isEngineUnreachable } from "../db/errors";
import { AppError, serviceUnavailable } from "../lib/errors";
import type { Logger } from "../lib/log";
import { FormattingError } from "./formatting";

/**
 * Bot API errors are AppErrors with code "BOT_API" whose message is the full description
 * in the compatible API's wording ("Bad Request: chat not found").
 */
export const botError = (status: number, description: string, retryAfter?: number) =>
  new AppError(status, "BOT_API", description, [], retryAfter === undefined ? undefined : { retryAfter });

export const badRequest = (reason: string) => botError(400, `Bad Request: ${reason}`);
export const forbiddenBot = (reason: string) => botError(403, `Forbidden: ${reason}`);

export const chatNotFound = () => badRequest("chat not found");
export const blockedByUser = () => forbiddenBot("bot was blocked by the user");

/** Domain refusals the compatible API words its own way: its exact descriptions, by the domain's code. */
const WORDING: Record<string, string> = {
  POLL_SUPERSEDED: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
  POLL_ENDED_BY_WEBHOOK: "Conflict: terminated by setWebhook request",
  BOT_TOKEN_INVALID: "Unauthorized",
  BOT_BLOCKED: "Forbidden: bot was blocked by moderation",
  BOT_DISABLED: "Forbidden: bot was disabled by its owner",
  SERVICE_UNAVAILABLE: "Service Unavailable: retry later",
};

const PREFIX: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Request Entity Too Large",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

export interface BotErrorBody {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

/**
 * Maps anything thrown by a Bot API method to the Bot API envelope. Domain AppErrors keep
 * their status and get the compatible prefix; an unreachable engine is 503 with
 * parameters.retry_after; unknown errors become 500 without details.
 */
export function toBotErrorBody(err: unknown, log: Logger): BotErrorBody {
  if (isEngineUnreachable(err)) {
    log.warn("engine unreachable; bot api call answered 503", { error: describeEngineError(err) });
    err = serviceUnavailable(err);
  }
  if (err instanceof FormattingError) return { ok: false, error_code: 400, description: err.description };
  if (err instanceof AppError) {
    let status = err.status;
    // the Bot API has no 422: schema problems are plain bad requests
    if (status === 422) status = 400;
    let description = WORDING[err.code] ?? err.message;
    if (err.code !== "BOT_API" && !(err.code in WORDING)) {
      const fields = (err.details as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors;
      const detail =
        fields && Object.keys(fields).length
          ? Object.entries(fields)
              .map(([k, v]) => `${k} ${v.join(", ")}`)
              .join("; ")
          : err.message;
      description = `${PREFIX[status] ?? "Error"}: ${detail}`;
    }
    const body: BotErrorBody = { ok: false, error_code: status, description };
    if (err.retryAfter !== undefined) body.parameters = { retry_after: err.retryAfter };
    return body;
  }
  log.error("bot api method failed", { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return { ok: false, error_code: 500, description: "Internal Server Error" };
}

/**
 * Runs a chats-domain call for a bot, turning its Client API refusals (by status) into the
 * Bot API descriptions given; anything else passes through.
 */
export async function asBot<T>(
  fn: () => Promise<T>,
  byStatus: Partial<Record<400 | 403 | 404, () => AppError>>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.code !== "BOT_API") {
      const status = err.status === 422 ? 400 : err.status;
      const mapped = byStatus[status as 400 | 403 | 404];
      if (mapped) throw mapped();
    }
    throw err;
  }
}
