import type { Command } from "commander";
import { resolveDataDir } from "../../src/config";
import { startServer } from "../../src/main";
import { isInitialised } from "../../src/config/layout";
import { globals } from "../context";
import { emit } from "../output";
import { firstAdminHint, initInstance } from "./init";
import { countAdmins } from "../../src/domain/admin/accounts";
import { assertNoServerRunning, claimServerLock } from "../../src/ops/server-lock";
import { socialctl } from "../hints";
import { libraryApiRoots } from "../../src/lib/bot-libraries";
import { rebuildWebOnChange } from "../../src/http/web-app";

export function registerServe(program: Command) {
  program
    .command("serve")
    .description("run the server (initialises an empty data dir with defaults)")
    .option("--port <n>", "listen port (overrides config)")
    .option("--host <h>", "listen address (overrides config)")
    .option("--watch-web", "from source: rebuild the web app when src/web changes (npm run dev)")
    .action(async (flags: { port?: string; host?: string; watchWeb?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const dataDir = resolveDataDir(opts.dataDir);
      const fresh = !isInitialised(dataDir);
      if (fresh) await initInstance({ ...opts, json: false }, {});
      assertNoServerRunning(dataDir, "starting another");
      const server = await startServer({ dataDir, overrides: { port: flags.port, host: flags.host } });
      claimServerLock(server);
      const { app } = server;
      // until someone holds the flag nobody can moderate: said at every start, not only the first
      const noAdmin = (await countAdmins(app.db)) === 0;
      if (flags.watchWeb && !rebuildWebOnChange())
        app.log.warn("--watch-web: this binary embeds the web app; nothing to watch");
      app.log.info("listening", { url: server.url, baseUrl: app.config.baseUrl, dataDir });
      // the one JSON document of `serve --json`: where it listens (the log stays on stderr)
      if (opts.json) emit(opts, { url: server.url, baseUrl: app.config.baseUrl, dataDir, initialised: fresh }, "");
      if (fresh) {
        const roots = libraryApiRoots(app.config.baseUrl);
        process.stderr.write(
          `\nA new instance was initialised in ${dataDir}.\n` +
            `Open ${app.config.baseUrl} in a browser to register or sign in.\n` +
            `Client API: ${app.config.baseUrl}/api  ·  Bot API root for grammY, Telegraf, node-telegram-bot-api: ${roots.apiRoot}` +
            `  ·  python-telegram-bot base_url: ${roots.libraries["python-telegram-bot"]}\n` +
            `From the command line: ${socialctl(opts)} user create --email E --username U --password P, then ${socialctl(opts)} bot create --owner U --username NAME_bot --name N\n\n`,
        );
      }
      if (noAdmin) process.stderr.write(`${firstAdminHint(opts)}\n\n`);
      let stopping = false;
      const shutdown = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        app.log.info("shutting down", { signal });
        await server.stop();
        process.exit(0);
      };
      process.on("SIGINT", () => void shutdown("SIGINT"));
      process.on("SIGTERM", () => void shutdown("SIGTERM"));
    });
}
