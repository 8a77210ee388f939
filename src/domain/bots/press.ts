import type { App } from "../../app";
import { getMember, isActive, otherPartyId, requireMembershipByCuid, requireVisibleMessage } from "../chats/access";
import type { UserRow } from "../users/table";
import { hmacSha256 } from "../../lib/crypto";
import { fieldError, notFound } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { toUnixSeconds } from "../../lib/clock";
import { inlineButtons } from "./buttons";
import { awaitAnswer, openPress, type CallbackAnswer } from "./callbacks";
import { botApiUserId } from "./ids";
import { signWebAppData } from "./webapp";
import { findBotByUserId } from "./service";
import { botProfile, menuButtonFor } from "./profile";
import type { BotRow } from "./table";
import type { ConversationRow } from "../chats/table";

/** How long the person's press waits for the bot's answer before answering null. */
export const PRESS_WAIT_MS = 5_000;

/** A stable opaque id of the chat a press happened in (the compatible API's chat_instance). */
export const chatInstance = (app: App, conversationId: number): string =>
  BigInt(
    "0x" +
      Buffer.from(hmacSha256(app.secret, `chat_instance:${conversationId}`), "base64url")
        .toString("hex")
        .slice(0, 15),
  ).toString();

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
 * A person presses an inline button with callback_data on a bot's message: the press is
 * handed to the bot ("button:pressed", which the Bot API turns into a callback_query) and
 * waits, bounded, for the bot's answer; null when none comes or the bot cannot get it.
 */
export async function pressButton(
  app: App,
  person: UserRow,
  conversationCuid: string,
  messageRef: string,
  data: string,
): Promise<CallbackAnswer | null> {
  const { conversation, message, bot, buttons } = await botMessage(app, person, conversationCuid, messageRef);
  if (!buttons.some((b) => b.callback_data === data))
    throw fieldError("data", "is not the callback data of a button on this message");
  if (!isActive(await getMember(app.db, conversation.id, bot.user_id))) return null;
  const press = await openPress(app, bot.id);
  await app.hooks.emit("button:pressed", {
    pressId: press.id,
    botId: bot.id,
    personId: person.id,
    conversationId: conversation.id,
    messageId: message.id,
    data,
  });
  return awaitAnswer(app, press.id, press.answer, PRESS_WAIT_MS);
}

/** The signed launch URL of a web_app button for PERSON (`#tgWebAppData=...`). */
export async function webAppLaunchUrl(
  app: App,
  person: UserRow,
  conversationCuid: string,
  messageRef: string,
  url: string,
): Promise<string> {
  const { conversation, bot, buttons } = await botMessage(app, person, conversationCuid, messageRef);
  if (!buttons.some((b) => b.web_app?.url === url))
    throw fieldError("url", "is not the address of a mini-app button on this message");
  return signedLaunchUrl(app, person, conversation, bot, url);
}

/**
 * The signed launch URL of the mini-app a bot set as its menu button (setChatMenuButton) in
 * PERSON's private chat with it; NOT_FOUND when the chat is not with a bot, or its menu button
 * is not a web_app (the commands menu needs no launch).
 */
export async function menuWebAppLaunchUrl(app: App, person: UserRow, conversationCuid: string): Promise<string> {
  const { conversation } = await requireMembershipByCuid(app.db, conversationCuid, person.id);
  const otherId = otherPartyId(conversation, person.id);
  const bot = otherId === null ? null : (await findBotByUserId(app.db, otherId))?.bot;
  if (!bot || bot.disabled_at !== null || bot.blocked_at !== null) throw notFound("This chat has no mini-app menu");
  const button = menuButtonFor(botProfile(bot), `chat:${conversation.id}`);
  if (button.type !== "web_app") throw notFound("This chat has no mini-app menu");
  return signedLaunchUrl(app, person, conversation, bot, button.web_app.url);
}

function signedLaunchUrl(
  app: App,
  person: UserRow,
  conversation: Pick<ConversationRow, "id" | "type">,
  bot: Pick<BotRow, "token_secret_hash">,
  url: string,
): string {
  const fields: Record<string, string> = {
    query_id: randomToken(12),
    user: JSON.stringify({
      id: botApiUserId(person.id),
      first_name: person.display_name,
      username: person.username,
      ...(person.language ? { language_code: person.language } : {}),
      is_bot: false,
    }),
    auth_date: String(toUnixSeconds(app.clock.now())),
    chat_instance: chatInstance(app, conversation.id),
    chat_type: conversation.type === "group" ? "group" : "private",
  };
  const signed = signWebAppData(bot.token_secret_hash, fields);
  return `${url}#tgWebAppData=${encodeURIComponent(signed)}&tgWebAppVersion=7.0&tgWebAppPlatform=web`;
}
