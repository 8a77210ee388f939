import { setWebhookConfig } from "../../domain/bots/service";
import {
  dropPendingUpdates,
  endPollForWebhook,
  notifyBotQueue,
  pollUpdates,
  setAllowedUpdates,
  UPDATE_TYPES,
} from "../../domain/bots/updates";
import { toUnixSeconds } from "../../lib/clock";
import { DescribedResult, type BotContext, type MethodTable } from "../context";
import { badRequest, botError } from "../errors";
import { webhookUrlProblem } from "../../http/outbound";

const SECRET_RE = /^[A-Za-z0-9_-]{1,256}$/;
/** getUpdates waits at most this long (service-api.md); a longer timeout is cut to it. */
const MAX_POLL_SECONDS = 25;

const clamp = (n: number, min: number, max: number) => Math.min(Math.max(n, min), max);

/** deleteWebhook, and setWebhook with an empty url. */
async function removeWebhook({ app, bot, params }: BotContext): Promise<DescribedResult> {
  await setWebhookConfig(app, bot.id, null);
  if (params.bool("drop_pending_updates")) await dropPendingUpdates(app, bot.id);
  return new DescribedResult(true, bot.webhook_url ? "Webhook was deleted" : "Webhook is already deleted");
}

function allowedUpdates({ params }: BotContext): string[] | undefined {
  const raw = params.json("allowed_updates");
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.some((t) => typeof t !== "string"))
    throw badRequest("allowed_updates must be an Array of String");
  // unknown kinds (inline_query, channel_post...) are accepted and simply never emitted
  return raw as string[];
}

export const updatesMethods = {
  async getUpdates(ctx) {
    const { app, bot, params } = ctx;
    if (bot.webhook_url) {
      throw botError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    // as the compatible server reads them: out-of-range values are clamped, unreadable ones are
    // the default (an offset of 0 confirms nothing)
    const offset = params.lenientInt("offset", 0);
    const limit = clamp(params.lenientInt("limit", 100), 1, 100);
    const timeout = clamp(params.lenientInt("timeout", 0), 0, MAX_POLL_SECONDS);
    await setAllowedUpdates(app, bot, allowedUpdates(ctx));
    return pollUpdates(app, bot, {
      offset: offset === 0 ? undefined : offset,
      limit,
      timeoutMs: timeout * 1000,
      signal: ctx.signal,
    });
  },

  async setWebhook(ctx) {
    const { app, bot, params } = ctx;
    let url = params.str("url") ?? "";
    // as the compatible server does, an address without a scheme is taken as https
    if (url !== "" && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) url = `https://${url}`;
    if (url === "") return removeWebhook(ctx);
    if (url.length > 512) throw badRequest("url is too long (maximum 512)");
    const problem = await webhookUrlProblem(app, url);
    if (problem) throw badRequest(`bad webhook: ${problem}`);
    const secret = params.str("secret_token") ?? null;
    if (secret !== null && (secret.length > 128 || !SECRET_RE.test(secret))) {
      throw badRequest("secret_token must be 1-128 characters of A-Z, a-z, 0-9, _ and -");
    }
    await setAllowedUpdates(app, bot, allowedUpdates(ctx));
    const drop = params.bool("drop_pending_updates");
    const unchanged = bot.webhook_url === url && bot.webhook_secret === secret && !drop;
    if (drop) await dropPendingUpdates(app, bot.id);
    await setWebhookConfig(app, bot.id, { url, secret });
    await endPollForWebhook(app, bot.id);
    notifyBotQueue(app, bot.id);
    return new DescribedResult(true, unchanged ? "Webhook is already set" : "Webhook was set");
  },

  deleteWebhook: removeWebhook,

  async getWebhookInfo({ bot }) {
    const info: {
      url: string;
      has_custom_certificate: boolean;
      pending_update_count: number;
      last_error_date?: number;
      last_error_message?: string;
      allowed_updates?: string[];
    } = {
      url: bot.webhook_url ?? "",
      has_custom_certificate: false,
      // the contract (service-api.md, WebhookInfo) states this is always 0; the queue itself is
      // still kept until collected, in both delivery modes
      pending_update_count: 0,
    };
    if (bot.webhook_last_error_date) {
      info.last_error_date = toUnixSeconds(bot.webhook_last_error_date);
      info.last_error_message = bot.webhook_last_error_message ?? "";
    }
    if (bot.allowed_updates) info.allowed_updates = JSON.parse(bot.allowed_updates) as string[];
    else if (bot.webhook_url) info.allowed_updates = [...UPDATE_TYPES];
    return info;
  },
} satisfies MethodTable;
