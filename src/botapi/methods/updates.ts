import { setWebhookConfig } from "../../domain/bots/service";
import {
  dropPendingUpdates,
  notifyBotQueue,
  pollUpdates,
  setAllowedUpdates,
  UPDATE_TYPES,
} from "../../domain/bots/updates";
import { toUnixSeconds } from "../../lib/clock";
import type { BotContext, MethodTable } from "../context";
import { badRequest, botError } from "../errors";
import { webhookUrlProblem } from "../../http/outbound";

const SECRET_RE = /^[A-Za-z0-9_-]{1,256}$/;

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
    const offset = params.int("offset");
    const limit = params.int("limit", { min: 1, max: 100 }) ?? 100;
    const timeout = Math.min(params.int("timeout", { min: 0 }) ?? 0, 25);
    await setAllowedUpdates(app, bot, allowedUpdates(ctx));
    return pollUpdates(app, bot, { offset, limit, timeoutMs: timeout * 1000, signal: ctx.signal });
  },

  async setWebhook(ctx) {
    const { app, bot, params } = ctx;
    let url = params.str("url") ?? "";
    // as the compatible server does, an address without a scheme is taken as https
    if (url !== "" && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) url = `https://${url}`;
    if (url === "") {
      await setWebhookConfig(app, bot.id, null);
      if (params.bool("drop_pending_updates")) await dropPendingUpdates(app, bot.id);
      return true;
    }
    if (url.length > 512) throw badRequest("url is too long (maximum 512)");
    const problem = await webhookUrlProblem(app, url);
    if (problem) throw badRequest(`bad webhook: ${problem}`);
    const secret = params.str("secret_token") ?? null;
    if (secret !== null && (secret.length > 128 || !SECRET_RE.test(secret))) {
      throw badRequest("secret_token must be 1-128 characters of A-Z, a-z, 0-9, _ and -");
    }
    await setAllowedUpdates(app, bot, allowedUpdates(ctx));
    if (params.bool("drop_pending_updates")) await dropPendingUpdates(app, bot.id);
    await setWebhookConfig(app, bot.id, { url, secret });
    notifyBotQueue(app, bot.id);
    return true;
  },

  async deleteWebhook({ app, bot, params }) {
    await setWebhookConfig(app, bot.id, null);
    if (params.bool("drop_pending_updates")) await dropPendingUpdates(app, bot.id);
    return true;
  },

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
