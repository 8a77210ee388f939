import type { App } from "../app";
import { answerPress, awaitAnswer, openPress, type CallbackAnswer } from "../domain/bots/callbacks";
import { enqueueUpdate } from "../domain/bots/updates";
import { botApiUserId } from "../domain/bots/ids";
import { signWebAppData } from "../domain/bots/webapp";
import { getMember, isActive, requireMembershipByCuid, requireVisibleMessage } from "../domain/chats/access";
import type { UserRow } from "../domain/users/table";
import { hmacSha256 } from "../lib/crypto";
import { fieldError, notFound } from "../lib/errors";
import { randomToken } from "../lib/ids";
import { toUnixSeconds } from "../lib/clock";
import { chatViewFor } from "./chats";
import type { MethodTable } from "./context";
import { badRequest } from "./errors";
import { inlineButtons } from "./markup";
import { serializeMessage, serializeUser } from "./serializers";

/** How long the person's press waits for answerCallbackQuery before answering null. */
export const PRESS_WAIT_MS = 5_000;

/** A stable opaque id of the chat a press happened in (the compatible API's chat_instance). */
const chatInstance = (app: App, conversationId: number): string =>
  BigInt("0x" + Buffer.from(hmacSha256(app.secret, `chat_instance:${conversationId}`), "base64url").toString("hex").slice(0, 15)).toString();

/** The bot-sent message a person acts on, with the bot behind it; NOT_FOUND otherwise. */
async function botMessage(app: App, person: UserRow, conversationCuid: string, messageRef: string) {
  const { conversation } = await requireMembershipByCuid(app.db, conversationCuid, person.id);
  const message = await requireVisibleMessage(app.db, conversation.id, messageRef, person.id);
  const bot = await app.db.selectFrom("bots").selectAll().where("user_id", "=", message.sender_id).executeTakeFirst();
  if (!bot) throw notFound("Message not found");
  const markup = message.reply_markup ? (JSON.parse(message.reply_markup) as unknown) : null;
  return { conversation, message, bot, buttons: inlineButtons(markup) };
}

/**
 * A person presses an inline button with callback_data on a bot's message: the bot gets a
 * callback_query and the press waits (bounded) for answerCallbackQuery.
 */
export async function pressButton(app: App, person: UserRow, conversationCuid: string, messageRef: string, data: string): Promise<CallbackAnswer | null> {
  const { conversation, message, bot, buttons } = await botMessage(app, person, conversationCuid, messageRef);
  if (!buttons.some((b) => b.callback_data === data)) throw fieldError("data", "is not the callback data of a button on this message");
  if (!isActive(await getMember(app.db, conversation.id, bot.user_id))) return null;
  const press = await openPress(app, bot.id);
  const view = await chatViewFor(app, conversation, bot.user_id);
  const queued = await enqueueUpdate(app, bot, "callback_query", {
    id: press.id,
    from: serializeUser(person),
    message: await serializeMessage(app.db, view, message),
    chat_instance: chatInstance(app, conversation.id),
    data,
  });
  if (queued === null) return null;
  return awaitAnswer(app, press.id, press.answer, PRESS_WAIT_MS);
}

/** The signed launch URL of a web_app button for PERSON (`#tgWebAppData=...`). */
export async function webAppLaunchUrl(app: App, person: UserRow, conversationCuid: string, messageRef: string, url: string): Promise<string> {
  const { conversation, bot, buttons } = await botMessage(app, person, conversationCuid, messageRef);
  if (!buttons.some((b) => b.web_app?.url === url)) throw fieldError("url", "is not the address of a mini-app button on this message");
  const fields: Record<string, string> = {
    query_id: randomToken(12),
    user: JSON.stringify({ id: botApiUserId(person.id), first_name: person.display_name, username: person.username, is_bot: false }),
    auth_date: String(toUnixSeconds(app.clock.now())),
    chat_instance: chatInstance(app, conversation.id),
    chat_type: conversation.type === "group" ? "group" : "private",
  };
  const signed = signWebAppData(bot.token_secret_hash, fields);
  return `${url}#tgWebAppData=${encodeURIComponent(signed)}&tgWebAppVersion=7.0&tgWebAppPlatform=web`;
}

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

export const callbackMethods: MethodTable = {
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
};
