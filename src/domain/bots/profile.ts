import type { App } from "../../app";
import { botCommands, forgetBotIdentities, type BotCommand } from "./service";
import type { BotRow } from "./table";
import { inTransaction } from "../../db/transaction";
import { botApiUserId } from "./ids";

/** A MenuButton as the compatible API shapes it. */
export type MenuButtonValue =
  { type: "commands" } | { type: "default" } | { type: "web_app"; text: string; web_app: { url: string } };

/**
 * What a bot set for particular languages and scopes (the compatible API keeps these apart
 * and falls back to the defaults, which stay in the bots columns), and its menu buttons.
 */
export interface BotProfile {
  /** language code → text */
  description?: Record<string, string>;
  short_description?: Record<string, string>;
  name?: Record<string, string>;
  /** scope key (see scopeKey in the Bot API layer) → language code ("" for all) → commands */
  commands?: Record<string, Record<string, BotCommand[]>>;
  /** "default" or a chat key → MenuButton object */
  menu_button?: Record<string, MenuButtonValue>;
  /** the rights the bot asks for when added as an administrator (setMyDefaultAdministratorRights), for groups and for channels */
  default_admin_rights?: { groups?: Record<string, boolean>; channels?: Record<string, boolean> };
}

export const botProfile = (bot: Pick<BotRow, "profile_json">): BotProfile => JSON.parse(bot.profile_json) as BotProfile;

/**
 * The menu button people see for KEY ("default" or "chat:<conversation id>"): the chat's own,
 * else the bot's default, else commands. A button set to `default` stands for the next one down.
 */
export function menuButtonFor(profile: BotProfile, key: string): MenuButtonValue {
  const own = profile.menu_button?.[key];
  if (own && own.type !== "default") return own;
  const wide = profile.menu_button?.default;
  return wide && wide.type !== "default" ? wide : { type: "commands" };
}

/**
 * The commands PERSON sees in their private chat with BOT, picked as the compatible API picks
 * them (setMyCommands): the narrowest scope the bot set a list for (this chat, all private
 * chats, the default), in each first the list for the person's language, then the one for
 * every language.
 */
export function commandsShownTo(
  bot: Pick<BotRow, "profile_json" | "commands">,
  person: { id: number; language: string | null },
): BotCommand[] {
  const scoped = botProfile(bot).commands ?? {};
  const languages = person.language ? [person.language, ""] : [""];
  // a private chat's id, as a bot names it in a scope, is the person's Bot API id
  for (const scope of [`chat:${botApiUserId(person.id)}`, "all_private_chats", "default"])
    for (const language of languages) {
      const list = scoped[scope]?.[language];
      if (list) return list;
    }
  return botCommands(bot);
}

/** The menu button as the bot set it for KEY (getChatMenuButton): `default` when it set that, else what people see. */
export const menuButtonAsSet = (profile: BotProfile, key: string): MenuButtonValue =>
  profile.menu_button?.[key] ?? menuButtonFor(profile, key);

/** Changes a bot's profile in one transaction (read, change, write), so concurrent calls do not lose each other's parts. */
export async function updateBotProfile(app: App, botId: number, change: (profile: BotProfile) => void): Promise<void> {
  await inTransaction(app.storage, async ({ db: trx }) => {
    const row = await trx.selectFrom("bots").select("profile_json").where("id", "=", botId).executeTakeFirstOrThrow();
    const profile = botProfile(row);
    change(profile);
    await trx
      .updateTable("bots")
      .set({ profile_json: JSON.stringify(profile), updated_at: app.clock.now() })
      .where("id", "=", botId)
      .execute();
  });
  forgetBotIdentities(app);
}
