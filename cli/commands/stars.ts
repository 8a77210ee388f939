import type { Command } from "commander";
import { grantStars, starBalance } from "../../src/domain/stars/service";
import { requireUserByUsername } from "../../src/domain/users/service";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";

/** socialctl stars grant U AMOUNT [--reason R] | stars balance U */
export function registerStars(program: Command) {
  const stars = program.command("stars").description("the star currency");

  stars
    .command("grant <username> <amount>")
    .description("credit stars to a person (the only way stars enter the system)")
    .option("--reason <text>", "shown in the person's transaction history")
    .action(async (username: string, rawAmount: string, f: { reason?: string }, cmd: Command) => {
      const opts = globals(cmd);
      if (!/^\d{1,10}$/.test(rawAmount) || Number(rawAmount) < 1)
        throw new CliError("amount must be a positive integer");
      const amount = Number(rawAmount);
      const out = await withApp(opts, async (app) => {
        const user = await requireUserByUsername(app.db, username);
        return { username: user.username, granted: amount, balance: await grantStars(app, user.id, amount, f.reason) };
      });
      emit(opts, out, `Granted ${out.granted} ⭐ to ${out.username}; balance ${out.balance}`);
    });

  stars
    .command("balance <username>")
    .description("a person's star balance")
    .action(async (username: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const out = await withApp(opts, async (app) => {
        const user = await requireUserByUsername(app.db, username);
        return { username: user.username, balance: await starBalance(app.db, user.id) };
      });
      emit(opts, out, `${out.username}: ${out.balance} ⭐`);
    });
}
