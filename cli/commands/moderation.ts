import type { Command } from "commander";
import { MAX_POSTING_BLOCK_MINUTES as MAX_MINUTES, setPostingBlockedUntil } from "../../src/domain/moderation/service";
import { requireUserByUsername } from "../../src/domain/users/service";
import { toIso } from "../../src/lib/clock";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";

/** Moderation of content: `user block-posting U --minutes N` and `user unblock-posting U`. */
export function registerModeration(program: Command) {
  const user =
    program.commands.find((c) => c.name() === "user") ?? program.command("user").description("account administration");

  user
    .command("block-posting <username>")
    .description("stop an account from posting and commenting for a while (POSTING_TEMPORARILY_BLOCKED)")
    .requiredOption("--minutes <n>", `how long, 1 to ${MAX_MINUTES} minutes`)
    .action(async (username: string, f: { minutes: string }, cmd: Command) => {
      const opts = globals(cmd);
      const minutes = Number(f.minutes);
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_MINUTES)
        throw new CliError(`--minutes must be an integer from 1 to ${MAX_MINUTES}`);
      const until = await withApp(opts, async (app) => {
        const u = await requireUserByUsername(app.db, username);
        const now = app.clock.now();
        const end = now + minutes * 60_000;
        await setPostingBlockedUntil(app.db, now, u.id, end);
        return end;
      });
      emit(opts, { username, postingBlockedUntil: toIso(until) }, `${username} cannot post until ${toIso(until)}`);
    });

  user
    .command("unblock-posting <username>")
    .description("lift a posting block")
    .action(async (username: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      await withApp(opts, async (app) => {
        const u = await requireUserByUsername(app.db, username);
        await setPostingBlockedUntil(app.db, app.clock.now(), u.id, null);
      });
      emit(opts, { username, postingBlockedUntil: null }, `${username} can post again`);
    });
}
