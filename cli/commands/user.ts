import type { Command } from "commander";
import { createUser, listAccounts, requireUserByUsername, setPassword } from "../../src/domain/users/service";
import { setAccountAdmin, setAccountDisabled } from "../../src/domain/admin/accounts";
import { revokeSessionsAndNotify } from "../../src/domain/sessions/revoke";
import { banUserDevices, unbanUserDevices } from "../../src/domain/auth/devices";
import { toIso } from "../../src/lib/clock";
import { emit } from "../output";
import { globals, withApp } from "../context";
import { readPassword } from "../prompts/password";

export function registerUser(program: Command) {
  const user = program.command("user").description("account administration");

  user
    .command("create")
    .description("create an account")
    .requiredOption("--email <e>", "e-mail address")
    .requiredOption("--username <u>", "username")
    .option("--password <p>", "password (8 to 128 characters); asked for on a terminal or read from stdin when omitted")
    .option("--display-name <name>", "display name")
    .option("--admin", "make an administrator")
    .option("--verified", "mark the e-mail address as confirmed")
    .action(
      async (
        f: {
          email: string;
          username: string;
          password?: string;
          displayName?: string;
          admin?: boolean;
          verified?: boolean;
        },
        cmd: Command,
      ) => {
        const opts = globals(cmd);
        const password = await readPassword(opts, f.password, `Password for ${f.username}`);
        const u = await withApp(opts, async (app) => {
          const created = await createUser(app.db, app.clock.now(), {
            email: f.email,
            username: f.username,
            password,
            displayName: f.displayName,
            isAdmin: f.admin,
            verified: f.verified,
          });
          await app.hooks.emit("user:created", { userId: created.id });
          return created;
        });
        emit(
          opts,
          {
            id: u.cuid,
            username: u.username,
            email: u.email,
            admin: u.is_admin === 1,
            verified: u.email_verified_at !== null,
          },
          `Created ${u.username} <${u.email}>`,
        );
      },
    );

  user
    .command("list")
    .description("list accounts, newest first")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const { items: rows } = await withApp(opts, (app) => listAccounts(app.db, { cursor: null }));
      const list = rows.map((u) => ({
        id: u.cuid,
        username: u.username,
        email: u.email,
        admin: u.is_admin === 1,
        bot: u.is_bot === 1,
        disabled: u.disabled_at !== null,
        createdAt: toIso(u.created_at),
      }));
      emit(opts, { users: list }, () =>
        list.length === 0
          ? "No accounts."
          : list
              .map(
                (u) =>
                  `${u.username}\t${u.email ?? "-"}${u.admin ? "\tadmin" : ""}${u.bot ? "\tbot" : ""}${u.disabled ? "\tdisabled" : ""}`,
              )
              .join("\n"),
      );
    });

  for (const [name, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    user
      .command(`${name} <username>`)
      .description(`${name} an account${disabled ? " (signs it out everywhere)" : ""}`)
      .action(async (username: string, _f: unknown, cmd: Command) => {
        const opts = globals(cmd);
        await withApp(opts, async (app) => {
          const u = await requireUserByUsername(app.db, username);
          await setAccountDisabled(app, u.id, disabled);
        });
        emit(opts, { username, disabled }, `${username} ${disabled ? "disabled" : "enabled"}`);
      });
  }

  for (const [name, admin] of [
    ["grant-admin", true],
    ["revoke-admin", false],
  ] as const) {
    user
      .command(`${name} <username>`)
      .description(
        admin
          ? "make the account an administrator (the admin area opens for it)"
          : "take the administrator flag away (never from the last administrator)",
      )
      .action(async (username: string, _f: unknown, cmd: Command) => {
        const opts = globals(cmd);
        const { name: shown, changed } = await withApp(opts, async (app) => {
          const u = await requireUserByUsername(app.db, username);
          return { name: u.username, ...(await setAccountAdmin(app, u, admin)) };
        });
        emit(
          opts,
          { username: shown, admin, changed },
          `${shown} ${changed ? (admin ? "is now an administrator" : "is no longer an administrator") : admin ? "was already an administrator" : "was not an administrator"}`,
        );
      });
  }

  user
    .command("set-password <username>")
    .description("set a new password (signs the account out everywhere)")
    .option("--password <p>", "the new password (asked for on a terminal or read from stdin when omitted)")
    .action(async (username: string, f: { password?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const password = await readPassword(opts, f.password, `New password for ${username}`);
      await withApp(opts, async (app) => {
        const u = await requireUserByUsername(app.db, username);
        await setPassword(app, u.id, password);
        await revokeSessionsAndNotify(app, u.id, null);
      });
      emit(opts, { username, passwordChanged: true }, `Password of ${username} changed`);
    });

  user
    .command("ban-devices <username>")
    .description("ban every device the account has signed in from (DEVICE_BANNED), whoever uses it")
    .action(async (username: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const banned = await withApp(opts, async (app) =>
        banUserDevices(app.db, app.clock.now(), (await requireUserByUsername(app.db, username)).id),
      );
      emit(opts, { username, bannedDevices: banned }, `${banned} device(s) of ${username} banned`);
    });

  user
    .command("unban-devices <username>")
    .description("lift the device bans placed through the account")
    .action(async (username: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const lifted = await withApp(opts, async (app) =>
        unbanUserDevices(app.db, (await requireUserByUsername(app.db, username)).id),
      );
      emit(opts, { username, unbannedDevices: lifted }, `${lifted} device ban(s) of ${username} lifted`);
    });
}
