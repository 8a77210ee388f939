import type { Command } from "commander";
import { createInvite, describeInvite, listInvites, revokeInvite } from "../../src/domain/auth/invites";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";

const wholeNumber = (flag: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  if (!/^\d{1,6}$/.test(raw)) throw new CliError(`${flag} must be a whole number`);
  return Number(raw);
};

/** socialctl invite create [--max-uses N] [--expires-in-hours H] | invite list | invite revoke CODE */
export function registerInvite(program: Command) {
  const invite = program.command("invite").description("sign-up invites (registration mode invite)");

  invite
    .command("create")
    .description("make an invite code and its sign-up link")
    .option("--max-uses <n>", "how many accounts it may make (default 1)")
    .option("--expires-in-hours <h>", "how long it works (default 168, a week)")
    .action(async (f: { maxUses?: string; expiresInHours?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const input = {
        maxUses: wholeNumber("--max-uses", f.maxUses),
        expiresInHours: wholeNumber("--expires-in-hours", f.expiresInHours),
      };
      const out = await withApp(opts, async (app) =>
        describeInvite(
          await createInvite(app.db, app.clock.now(), null, input),
          app.config.baseUrl,
          app.clock.now(),
          null,
        ),
      );
      emit(
        opts,
        { invite: out },
        `Invite ${out.code}: ${out.url}\n${out.maxUses === 1 ? "one use" : `${out.maxUses} uses`}, until ${out.expiresAt}`,
      );
    });

  invite
    .command("list")
    .description("every invite, newest first, with its uses and expiry")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const list = await withApp(opts, async (app) =>
        (await listInvites(app.db)).map((r) =>
          describeInvite(r, app.config.baseUrl, app.clock.now(), r.created_by_username),
        ),
      );
      emit(opts, { invites: list }, () =>
        list.length === 0
          ? "No invites."
          : list.map((i) => `${i.code}  ${i.uses}/${i.maxUses} used  ${i.state}  until ${i.expiresAt}`).join("\n"),
      );
    });

  invite
    .command("revoke <code>")
    .description("stop an invite from admitting anyone")
    .action(async (code: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const out = await withApp(opts, async (app) =>
        describeInvite(await revokeInvite(app.db, app.clock.now(), code), app.config.baseUrl, app.clock.now(), null),
      );
      emit(opts, { invite: out }, `Revoked invite ${out.code}`);
    });
}
