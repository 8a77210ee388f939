import type { Command } from "commander";
import { resolveDataDir, setConfigValue, parseConfigValue, readConfigFile } from "../../src/config";
import { isInitialised } from "../../src/config/layout";
import { createUser } from "../../src/domain/users/service";
import { emit, interactive, type GlobalOptions } from "../output";
import { globals, withApp } from "../context";
import { promptInit, type InitAnswers } from "../prompts/init";
import { socialctl } from "../hints";

/** Creates the data dir, config and database; idempotent on an existing instance. */
export async function initInstance(opts: GlobalOptions, answers: InitAnswers) {
  const dataDir = resolveDataDir(opts.dataDir);
  const existed = isInitialised(dataDir);
  // validate every answer before writing anything
  if (answers.port !== undefined) parseConfigValue("port", answers.port);
  if (answers.baseUrl !== undefined) parseConfigValue("baseUrl", answers.baseUrl);
  if (answers.registration !== undefined) parseConfigValue("registration", answers.registration);
  if (answers.port !== undefined) setConfigValue(dataDir, "port", answers.port);
  if (answers.baseUrl !== undefined) setConfigValue(dataDir, "baseUrl", answers.baseUrl);
  if (answers.registration !== undefined) setConfigValue(dataDir, "registration", answers.registration);
  return withApp(
    opts,
    async (app) => {
      let admin: { id: string; username: string } | undefined;
      if (answers.admin) {
        const u = await createUser(app.db, app.clock.now(), { ...answers.admin, isAdmin: true, verified: true });
        await app.hooks.emit("user:created", { userId: u.id });
        admin = { id: u.cuid, username: u.username };
      }
      return { dataDir, created: !existed, config: readConfigFile(dataDir), baseUrl: app.config.baseUrl, admin };
    },
    { requireInit: false },
  );
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
      const answers: InitAnswers = interactive(opts) ? await promptInit(flags) : flags;
      const result = await initInstance(opts, answers);
      emit(opts, result, () =>
        [
          result.created
            ? `Initialised ${result.dataDir}`
            : `${result.dataDir} was already initialised; settings updated`,
          result.admin ? `Admin account: ${result.admin.username}` : "",
          `Next: ${socialctl(opts)} serve; then open ${result.baseUrl} in a browser (the Client API answers at ${result.baseUrl}/api)`,
        ]
          .filter(Boolean)
          .join("\n"),
      );
    });
}
