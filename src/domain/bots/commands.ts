import type { BotCommand } from "./service";

/** A bot's command list as setMyCommands limits it: at most this many commands… */
export const COMMANDS_MAX = 100;
/** …each a name of 1-32 lowercase letters, digits and underscores (a leading "/" is dropped)… */
const COMMAND_RE = /^[a-z0-9_]{1,32}$/;
/** …with a description of 1-256 characters. */
export const COMMAND_DESCRIPTION_MAX = 256;

/**
 * Validates a command list for either surface, with the compatible API's limits and wording
 * (the Bot API's setMyCommands, the owner's Client API). REFUSE turns the first problem into
 * the surface's error: the reason, and the field it is about ("commands.3.description").
 */
export function parseBotCommands(raw: unknown, refuse: (reason: string, field: string) => Error): BotCommand[] {
  if (!Array.isArray(raw)) throw refuse("commands must be an Array of BotCommand", "commands");
  if (raw.length > COMMANDS_MAX) throw refuse(`too many commands specified (maximum ${COMMANDS_MAX})`, "commands");
  return raw.map((c, i) => {
    if (!c || typeof c !== "object") throw refuse(`commands[${i}] must be a BotCommand`, `commands.${i}`);
    const { command, description } = c as { command?: unknown; description?: unknown };
    if (typeof command !== "string" || command.length === 0)
      throw refuse("command must be non-empty", `commands.${i}.command`);
    const name = command.replace(/^\//, "");
    if (!COMMAND_RE.test(name))
      throw refuse(
        "command must contain only lowercase English letters, digits and underscores (1-32 characters)",
        `commands.${i}.command`,
      );
    if (typeof description !== "string" || description.length === 0)
      throw refuse("command description must be non-empty", `commands.${i}.description`);
    if (description.length > COMMAND_DESCRIPTION_MAX)
      throw refuse(`command description is too long (maximum ${COMMAND_DESCRIPTION_MAX})`, `commands.${i}.description`);
    return { command: name, description };
  });
}
