import type { Command } from "commander";
import { loadConfig, parseConfigValue, readConfigFile, resolveDataDir, storeConfigValues } from "../../src/config";
import type { ConfigKey } from "../../src/config";
import { isInitialised } from "../../src/config/layout";
import { countAdmins } from "../../src/domain/admin/accounts";
import { createUser } from "../../src/domain/users/service";
import { emit, interactive, type GlobalOptions } from "../output";
import { globals, withApp } from "../context";
import { promptInit, type InitAnswers, type InitDefaults } from "../prompts/init";
import { socialctl } from "../hints";

/**
 * Creates the data dir, config and database; idempotent on an existing instance. Everything
 * that can be refused (each setting, the admin's e-mail and username) is checked before the
 * config is written: a failed init leaves an existing instance as it was.
 */
export async function initInstance(opts: GlobalOptions, answers: InitAnswers) {
  const dataDir = resolveDataDir(opts.dataDir);
  const existed = isInitialised(dataDir);
  const settings: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of ["port", "baseUrl", "registration"] as const)
    if (answers[key] !== undefined) settings[key] = parseConfigValue(key, answers[key]);
  return withApp(
    opts,
    async (app) => {
      let admin: { id: string; username: string } | undefined;
      // before the settings are stored: a taken username or e-mail fails here, with nothing written
      if (answers.admin) {
        const u = await createUser(app.db, app.clock.now(), { ...answers.admin, isAdmin: true, verified: true });
        await app.hooks.emit("user:created", { userId: u.id });
        admin = { id: u.cuid, username: u.username };
      }
      if (Object.keys(settings).length) storeConfigValues(dataDir, settings);
      const admins = await countAdmins(app.db);
      return {
        dataDir,
        created: !existed,
        config: readConfigFile(dataDir),
        baseUrl: loadConfig(dataDir).baseUrl,
        admin,
        admins,
      };
    },
    { requireInit: false },
  );
}

/** The exact commands that make the first administrator, for an instance that has none. */
export function firstAdminHint(opts: GlobalOptions): string {
  const cli = socialctl(opts);
  return (
    `No administrator yet. Register in the browser, then run: ${cli} user grant-admin <username>\n` +
    `  (or make one directly: ${cli} user create --email <e-mail> --username <username> --admin)`
  );
}

/** What an interactive init proposes: the instance's current values when it exists, FLAGS over them. */
async function currentDefaults(opts: GlobalOptions, flags: InitDefaults): Promise<InitDefaults> {
  const dataDir = resolveDataDir(opts.dataDir);
  if (!isInitialised(dataDir)) return flags;
  const stored = readConfigFile(dataDir);
  const effective = loadConfig(dataDir);
  const admins = await withApp(opts, (app) => countAdmins(app.db));
  return {
    port: flags.port ?? String(effective.port),
    // a base URL never stored follows the port answered, as on a new instance
    baseUrl: flags.baseUrl ?? (stored.baseUrl ? effective.baseUrl : undefined),
    registration: flags.registration ?? effective.registration,
    hasAdmin: admins > 0,
  };
}

export function registerInit(program: Command) {
  program
    .command("init")
    .description("create the data dir, config and database")
    .option("--base-url <url>", "public origin (e.g. https://social.example.com)")
    .option("--port <n>", "listen port")
    .option("--registration <mode>", "open, captcha, invite or closed")
    .action(async (flags: { baseUrl?: string; port?: string; registration?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const answers: InitAnswers = interactive(opts) ? await promptInit(await currentDefaults(opts, flags)) : flags;
      const result = await initInstance(opts, answers);
      emit(opts, result, () =>
        [
          result.created
            ? `Initialised ${result.dataDir}`
            : `${result.dataDir} was already initialised; settings updated`,
          result.admin ? `Admin account: ${result.admin.username}` : "",
          result.admins === 0 ? firstAdminHint(opts) : "",
          `Next: ${socialctl(opts)} serve; then open ${result.baseUrl} in a browser (the Client API answers at ${result.baseUrl}/api)`,
        ]
          .filter(Boolean)
          .join("\n"),
      );
    });
}
