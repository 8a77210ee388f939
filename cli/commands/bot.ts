import type { Command } from "commander";
import type { App } from "../../src/app";
import {
  botCommands,
  createBot,
  findBotByUsername,
  listAllBots,
  reissueToken,
  setBotEnabledByUsername,
  type BotWithUser,
} from "../../src/domain/bots/service";
import { requireUserByUsername } from "../../src/domain/users/service";
import { toIso } from "../../src/lib/clock";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";
import { botApiUserId } from "../../src/domain/bots/ids";
import { libraryApiRoots } from "../../src/lib/bot-libraries";
import { effectiveBaseUrl } from "../../src/ops/server-lock";
import { registerBotLog } from "./bot-log";

const showBot = (app: App, { bot, user }: BotWithUser, owner: string | null) => ({
  id: botApiUserId(user.id),
  username: user.username,
  name: user.display_name,
  owner,
  enabled: bot.disabled_at === null,
  privacy: bot.privacy,
  commands: botCommands(bot),
  webhookUrl: bot.webhook_url,
  ...libraryApiRoots(effectiveBaseUrl(app)),
  createdAt: toIso(bot.created_at),
});

/** The lines telling an owner what to give each bot library. */
const howToConnect = (b: ReturnType<typeof showBot>): string =>
  `API root for grammY, Telegraf, node-telegram-bot-api: ${b.apiRoot}\npython-telegram-bot base_url: ${b.libraries["python-telegram-bot"]}`;

async function ownerName(app: App, ownerId: number): Promise<string | null> {
  const row = await app.db.selectFrom("users").select("username").where("id", "=", ownerId).executeTakeFirst();
  return row?.username ?? null;
}

/** socialctl bot create | token --reissue | list | disable | enable */
export function registerBot(program: Command) {
  const bot = program.command("bot").description("bot administration");

  bot
    .command("create")
    .description("create a bot; prints its token once")
    .requiredOption("--owner <username>", "the owning account")
    .requiredOption("--username <name_bot>", "bot username, ending with _bot")
    .requiredOption("--name <name>", "display name")
    .action(async (f: { owner: string; username: string; name: string }, cmd: Command) => {
      const opts = globals(cmd);
      const out = await withApp(opts, async (app) => {
        const owner = await requireUserByUsername(app.db, f.owner);
        const made = await createBot(app, { ownerId: owner.id, username: f.username, name: f.name });
        return { ...showBot(app, made, owner.username), token: made.token };
      });
      emit(
        opts,
        out,
        () => `Created ${out.username}\nToken (shown once, keep it secret): ${out.token}\n${howToConnect(out)}`,
      );
    });

  bot
    .command("token <username>")
    .description("issue a new token (the old one stops working at once)")
    .option("--reissue", "required: confirms the old token is revoked")
    .action(async (username: string, f: { reissue?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      if (!f.reissue) throw new CliError("tokens are never stored; use --reissue to issue a new one");
      const out = await withApp(opts, async (app) => {
        const found = await findBotByUsername(app.db, username);
        if (!found) throw new CliError(`bot ${username} not found`);
        const token = await reissueToken(app, found.bot.id);
        return { ...showBot(app, found, await ownerName(app, found.bot.owner_id)), token };
      });
      emit(opts, out, () => `New token for ${out.username} (shown once): ${out.token}\n${howToConnect(out)}`);
    });

  bot
    .command("list")
    .description("list bots")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const bots = await withApp(opts, async (app) =>
        Promise.all(
          (await listAllBots(app.db)).map(async (b) => showBot(app, b, await ownerName(app, b.bot.owner_id))),
        ),
      );
      emit(opts, { bots }, () =>
        bots.length === 0
          ? "No bots."
          : bots
              .map(
                (b) =>
                  `${b.username}\towner ${b.owner ?? "-"}\t${b.enabled ? "enabled" : "disabled"}\tprivacy ${b.privacy}`,
              )
              .join("\n"),
      );
    });

  registerBotLog(bot);

  for (const [name, enabled] of [
    ["disable", false],
    ["enable", true],
  ] as const) {
    bot
      .command(`${name} <username>`)
      .description(`${name} a bot${enabled ? "" : " (its token is refused with 403 until enabled)"}`)
      .action(async (username: string, _f: unknown, cmd: Command) => {
        const opts = globals(cmd);
        const out = await withApp(opts, async (app) => {
          const found = await setBotEnabledByUsername(app, username, enabled);
          return showBot(app, found, await ownerName(app, found.bot.owner_id));
        });
        emit(opts, out, `${out.username} ${enabled ? "enabled" : "disabled"}`);
      });
  }
}
