import { botCommands, updateBotSettings, DESCRIPTION_MAX, SHORT_DESCRIPTION_MAX, type BotCommand } from "../../domain/bots/service";
import type { MethodTable } from "../context";
import { badRequest } from "../errors";
import { serializeBotSelf } from "../serializers";

const COMMAND_RE = /^[a-z0-9_]{1,32}$/;

/** Validates a setMyCommands list with the compatible API's limits and wording. */
function parseCommands(raw: unknown): BotCommand[] {
  if (!Array.isArray(raw)) throw badRequest("commands must be an Array of BotCommand");
  if (raw.length > 100) throw badRequest("too many commands specified (maximum 100)");
  return raw.map((c, i) => {
    if (!c || typeof c !== "object") throw badRequest(`commands[${i}] must be a BotCommand`);
    const { command, description } = c as { command?: unknown; description?: unknown };
    if (typeof command !== "string" || command.length === 0) throw badRequest("command must be non-empty");
    const name = command.replace(/^\//, "");
    if (!COMMAND_RE.test(name)) throw badRequest("command must contain only lowercase English letters, digits and underscores (1-32 characters)");
    if (typeof description !== "string" || description.length === 0) throw badRequest("command description must be non-empty");
    if (description.length > 256) throw badRequest("command description is too long (maximum 256)");
    return { command: name, description };
  });
}

export const profileMethods = {
  async getMe({ me, bot }) {
    return serializeBotSelf(me, bot);
  },
  async setMyCommands({ app, bot, params }) {
    const commands = parseCommands(params.json("commands", { required: true }));
    await updateBotSettings(app, bot.id, { commands });
    return true;
  },
  async getMyCommands({ bot }) {
    return botCommands(bot);
  },
  async deleteMyCommands({ app, bot }) {
    await updateBotSettings(app, bot.id, { commands: [] });
    return true;
  },
  async setMyDescription({ app, bot, params }) {
    const description = params.str("description", { max: DESCRIPTION_MAX }) ?? "";
    await updateBotSettings(app, bot.id, { description });
    return true;
  },
  async getMyDescription({ bot }) {
    return { description: bot.description };
  },
  async setMyShortDescription({ app, bot, params }) {
    const shortDescription = params.str("short_description", { max: SHORT_DESCRIPTION_MAX }) ?? "";
    await updateBotSettings(app, bot.id, { shortDescription });
    return true;
  },
  async getMyShortDescription({ bot }) {
    return { short_description: bot.short_description };
  },
  // nothing to release: there is no cloud/local server split here
  async close() {
    return true;
  },
  async logOut() {
    return true;
  },
} satisfies MethodTable;
