import type { App } from "../../app";
import { answerPress, cancelPress } from "../../domain/bots/callbacks";
import { chatInstance } from "../../domain/bots/press";
import { enqueueUpdate } from "../../domain/bots/updates";
import { findConversationById, findMessageById } from "../../domain/chats/access";
import { findBotById } from "../../domain/bots/service";
import { findUserById } from "../../domain/users/service";
import { chatViewFor } from "../chats";
import type { MethodTable } from "../context";
import { badRequest } from "../errors";
import { serializeMessage, serializeUser } from "../serializers";

function answerUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  try {
    const u = new URL(url);
    if (u.protocol === "https:" || u.protocol === "http:") return url;
  } catch {
    // falls through
  }
  throw badRequest("URL_INVALID");
}

export const callbackMethods = {
  async answerCallbackQuery({ app, bot, params }) {
    const id = params.str("callback_query_id", { required: true, max: 64, empty: "callback_query_id is empty" })!;
    const text = params.str("text", { max: 200 }) ?? null;
    const showAlert = params.bool("show_alert") === true;
    const url = answerUrl(params.str("url", { max: 512 }));
    if (!(await answerPress(app, bot.id, id, { text, showAlert, url }))) {
      throw badRequest("query is too old and response timeout expired or query ID is invalid");
    }
    return true;
  },
} satisfies MethodTable;

/** A person pressed a button of a bot's message: the bot gets a callback_query carrying the press id. */
async function sendCallbackQuery(
  app: App,
  p: { pressId: string; botId: number; personId: number; conversationId: number; messageId: number; data: string },
): Promise<void> {
  let queued: number | null = null;
  try {
    const [bot, person, conversation, message] = await Promise.all([
      findBotById(app.db, p.botId),
      findUserById(app.db, p.personId),
      findConversationById(app.db, p.conversationId),
      findMessageById(app.db, p.messageId),
    ]);
    if (!bot || !person || !conversation || !message) return;
    queued = await enqueueUpdate(app, bot, "callback_query", {
      id: p.pressId,
      from: serializeUser(person),
      message: await serializeMessage(app.db, await chatViewFor(app.db, conversation, bot.user_id), message),
      chat_instance: chatInstance(app, conversation.id),
      data: p.data,
    });
  } finally {
    // not queued (the bot's allowed_updates leave callback_query out): nobody will answer
    if (queued === null) cancelPress(app, p.pressId);
  }
}

/** The Bot API side of button presses. Registered once per App (wiring.ts). */
export function installCallbackQueryHooks(app: App): void {
  app.hooks.on("button:pressed", (p) => sendCallbackQuery(app, p));
}
