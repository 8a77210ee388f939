import type * as Clack from "@clack/prompts";

/**
 * @clack/prompts, loaded by the commands that prompt or draw progress bars: it loads
 * node:readline and its terminal helpers, which `serve` (and every command run from a script)
 * would otherwise evaluate at start for nothing.
 */
export const clack = (): typeof Clack => require("@clack/prompts") as typeof Clack;
