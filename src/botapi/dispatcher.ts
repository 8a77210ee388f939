import type { App } from "../app";
import type { BotWithUser } from "../domain/bots/service";
import type { BotMethod, MethodTable } from "./context";
import { botError } from "./errors";
import type { Params } from "./params";
import { profileMethods } from "./methods/profile";
import { updatesMethods } from "./methods/updates";
import { sendMethods } from "./methods/send";
import { callbackMethods } from "./callbacks";
import { editMethods } from "./methods/edit";
import { chatMethods } from "./methods/chats";
import { paymentMethods } from "./methods/payments";

/** Every Bot API method, keyed by lower-cased name: method names are case-insensitive. */
const METHODS = new Map<string, BotMethod>();
for (const table of [profileMethods, updatesMethods, sendMethods, editMethods, callbackMethods, chatMethods, paymentMethods] satisfies MethodTable[]) {
  for (const [name, fn] of Object.entries(table)) METHODS.set(name.toLowerCase(), fn);
}

/** Runs one Bot API method for a bot; unknown names are 404 "Not Found: method not found". */
export async function callBotMethod(app: App, found: BotWithUser, name: string, params: Params, signal?: AbortSignal): Promise<unknown> {
  const fn = METHODS.get(name.toLowerCase());
  if (!fn) throw botError(404, "Not Found: method not found");
  return fn({ app, bot: found.bot, me: found.user, params, signal });
}
