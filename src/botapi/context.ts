import type { App } from "../app";
import type { BotRow } from "../domain/bots/table";
import type { UserRow } from "../domain/users/table";
import type { Params } from "./params";

/** What every Bot API method receives: the bot, its account and the call's parameters. */
export interface BotContext {
  app: App;
  bot: BotRow;
  me: UserRow;
  params: Params;
  /** aborted when the caller hangs up (long polls stop waiting) */
  signal?: AbortSignal;
}

export type BotMethod = (ctx: BotContext) => Promise<unknown>;
export type MethodTable = Record<string, BotMethod>;

/** A result the compatible API answers with a description beside it (setWebhook's "Webhook was set"). */
export class DescribedResult {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}
