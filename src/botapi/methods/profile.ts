import { botCommands, updateBotSettings, DESCRIPTION_MAX, SHORT_DESCRIPTION_MAX } from "../../domain/bots/service";
import { parseBotCommands } from "../../domain/bots/commands";
import { botProfile, updateBotProfile, type BotProfile } from "../../domain/bots/profile";
import { DISPLAY_NAME_MAX, updateProfile } from "../../domain/profiles/edit";
import type { BotContext, MethodTable } from "../context";
import { asBot, badRequest } from "../errors";
import type { Params } from "../params";
import { serializeBotSelf } from "../serializers";
import { parseMenuButton } from "../markup";
import { resolveChat } from "../chats";
import { menuButtonAsSet } from "../../domain/bots/profile";

/** The fields of ChatAdministratorRights, as the compatible API lists them. */
const ADMINISTRATOR_RIGHTS = [
  "is_anonymous",
  "can_manage_chat",
  "can_delete_messages",
  "can_manage_video_chats",
  "can_restrict_members",
  "can_promote_members",
  "can_change_info",
  "can_invite_users",
  "can_post_stories",
  "can_edit_stories",
  "can_delete_stories",
  "can_post_messages",
  "can_edit_messages",
  "can_pin_messages",
  "can_manage_topics",
] as const;

/** `language_code`: a two-letter ISO 639-1 code, or "" (absent) for everyone without a dedicated value. */
function languageCode(params: Params): string {
  const code = params.str("language_code") ?? "";
  if (code !== "" && !/^[a-z]{2}$/.test(code)) throw badRequest("invalid language code specified");
  return code;
}

const chatKey = (v: unknown, field: string): string => {
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  if (typeof v === "string" && /^-?\d{1,16}$/.test(v.trim())) return String(Number(v.trim()));
  if (typeof v === "string" && /^@[A-Za-z0-9_]{1,64}$/.test(v.trim())) return v.trim().toLowerCase();
  throw badRequest(`can't parse BotCommandScope: ${field} is invalid`);
};

/** `scope` (BotCommandScope) as a key: "default", a type without a chat, or the type with its chat (and member). */
function scopeKey(params: Params): string {
  const raw = params.json("scope");
  if (raw === undefined || raw === null) return "default";
  if (typeof raw !== "object" || Array.isArray(raw)) throw badRequest("can't parse BotCommandScope: object expected");
  const { type, chat_id, user_id } = raw as { type?: unknown; chat_id?: unknown; user_id?: unknown };
  switch (type) {
    case "default":
    case "all_private_chats":
    case "all_group_chats":
    case "all_chat_administrators":
      return type;
    case "chat":
    case "chat_administrators":
      return `${type}:${chatKey(chat_id, "chat_id")}`;
    case "chat_member":
      return `${type}:${chatKey(chat_id, "chat_id")}:${chatKey(user_id, "user_id")}`;
    default:
      throw badRequest("can't parse BotCommandScope: unsupported type specified");
  }
}

/** "default", or the private chat chat_id names (menu buttons exist in private chats only). */
async function menuKey(ctx: BotContext): Promise<string> {
  if (!ctx.params.has("chat_id")) return "default";
  const view = await resolveChat(ctx, "chat_id", false);
  if (view.conversation.type !== "private") throw badRequest("menu button can be set only in private chats");
  return `chat:${view.conversation.id}`;
}

type TextField = "description" | "short_description" | "name";

/** Sets (or with "" removes) a per-language text; the default lives in its column. */
const setLocalized = (ctx: BotContext, field: TextField, lang: string, value: string) =>
  updateBotProfile(ctx.app, ctx.bot.id, (p) => {
    const texts = (p[field] ??= {});
    if (value === "") delete texts[lang];
    else texts[lang] = value;
  });

/** The text people with LANG see: theirs when set, else the default. */
const localized = (profile: BotProfile, field: TextField, lang: string, fallback: string): string =>
  (lang !== "" ? profile[field]?.[lang] : undefined) ?? fallback;

export const profileMethods = {
  async getMe({ me, bot }) {
    return serializeBotSelf(me, bot);
  },

  async setMyCommands(ctx) {
    const commands = parseBotCommands(ctx.params.json("commands", { required: true }), (reason) => badRequest(reason));
    const scope = scopeKey(ctx.params);
    const lang = languageCode(ctx.params);
    if (scope === "default" && lang === "") await updateBotSettings(ctx.app, ctx.bot.id, { commands });
    else
      await updateBotProfile(ctx.app, ctx.bot.id, (p) => void (((p.commands ??= {})[scope] ??= {})[lang] = commands));
    return true;
  },
  /** The list set for exactly this scope and language, [] when there is none, as the compatible API answers. */
  async getMyCommands({ bot, params }) {
    const scope = scopeKey(params);
    const lang = languageCode(params);
    if (scope === "default" && lang === "") return botCommands(bot);
    return botProfile(bot).commands?.[scope]?.[lang] ?? [];
  },
  async deleteMyCommands(ctx) {
    const scope = scopeKey(ctx.params);
    const lang = languageCode(ctx.params);
    if (scope === "default" && lang === "") await updateBotSettings(ctx.app, ctx.bot.id, { commands: [] });
    else
      await updateBotProfile(ctx.app, ctx.bot.id, (p) => {
        delete p.commands?.[scope]?.[lang];
        if (p.commands?.[scope] && Object.keys(p.commands[scope]).length === 0) delete p.commands[scope];
      });
    return true;
  },

  async setMyDescription(ctx) {
    const description = ctx.params.str("description", { max: DESCRIPTION_MAX }) ?? "";
    const lang = languageCode(ctx.params);
    if (lang === "") await updateBotSettings(ctx.app, ctx.bot.id, { description });
    else await setLocalized(ctx, "description", lang, description);
    return true;
  },
  async getMyDescription({ bot, params }) {
    return { description: localized(botProfile(bot), "description", languageCode(params), bot.description) };
  },
  async setMyShortDescription(ctx) {
    const shortDescription = ctx.params.str("short_description", { max: SHORT_DESCRIPTION_MAX }) ?? "";
    const lang = languageCode(ctx.params);
    if (lang === "") await updateBotSettings(ctx.app, ctx.bot.id, { shortDescription });
    else await setLocalized(ctx, "short_description", lang, shortDescription);
    return true;
  },
  async getMyShortDescription({ bot, params }) {
    return {
      short_description: localized(botProfile(bot), "short_description", languageCode(params), bot.short_description),
    };
  },

  /** The default name is the bot account's display name (getMe's first_name); "" keeps it, as it cannot be empty. */
  async setMyName(ctx) {
    const name = ctx.params.str("name", { max: DISPLAY_NAME_MAX }) ?? "";
    const lang = languageCode(ctx.params);
    if (lang !== "") await setLocalized(ctx, "name", lang, name);
    else if (name.trim() !== "") {
      await asBot(() => updateProfile(ctx.app, ctx.me, { displayName: name }), {
        400: () => badRequest("name is invalid"),
      });
    }
    return true;
  },
  async getMyName({ me, bot, params }) {
    return { name: localized(botProfile(bot), "name", languageCode(params), me.display_name) };
  },

  /** The button beside a person's input: per private chat (chat_id) or the default; shown by the app. */
  async setChatMenuButton(ctx) {
    const key = await menuKey(ctx);
    const button = parseMenuButton(ctx.params.json("menu_button"));
    // `default` is kept as set: getChatMenuButton answers it back, as the compatible API does
    await updateBotProfile(ctx.app, ctx.bot.id, (p) => void ((p.menu_button ??= {})[key] = button));
    return true;
  },
  async getChatMenuButton(ctx) {
    return menuButtonAsSet(botProfile(ctx.bot), await menuKey(ctx));
  },

  async setMyDefaultAdministratorRights(ctx) {
    const raw = ctx.params.json("rights");
    if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw)))
      throw badRequest("can't parse ChatAdministratorRights: object expected");
    const rights = raw
      ? Object.fromEntries(ADMINISTRATOR_RIGHTS.map((r) => [r, (raw as Record<string, unknown>)[r] === true]))
      : undefined;
    const audience = ctx.params.bool("for_channels") ? "channels" : "groups";
    await updateBotProfile(ctx.app, ctx.bot.id, (p) => {
      const all = (p.default_admin_rights ??= {});
      if (rights) all[audience] = rights;
      else delete all[audience];
    });
    return true;
  },
  /** Every right named, false unless the bot asked for it, as the compatible API answers. */
  async getMyDefaultAdministratorRights({ bot, params }) {
    const audience = params.bool("for_channels") ? "channels" : "groups";
    const set = botProfile(bot).default_admin_rights?.[audience] ?? {};
    return Object.fromEntries(ADMINISTRATOR_RIGHTS.map((r) => [r, set[r] === true]));
  },

  // nothing to release: there is no cloud/local server split here
  async close() {
    return true;
  },
  async logOut() {
    return true;
  },
} satisfies MethodTable;
