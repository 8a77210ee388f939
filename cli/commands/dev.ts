import type { Command } from "commander";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { App } from "../../src/app";
import { resolveDataDir, storeConfigValues } from "../../src/config";
import { isInitialised, SANDBOX_FILE } from "../../src/config/layout";
import { issueSignInLink } from "../../src/domain/auth/sign-in-links";
import { createBot, findBotByUsername, updateBotSettings } from "../../src/domain/bots/service";
import { botLogOf } from "../../src/domain/bots/log";
import { BOT_LIBRARY_LABELS, libraryApiRoots, type BotLibrary } from "../../src/lib/bot-libraries";
import { grantStars } from "../../src/domain/stars/service";
import { createUser, requireUserByUsername } from "../../src/domain/users/service";
import { SIGN_IN_LINK_PATH } from "../../src/clientapi/auth/sign-in-link";
import { randomToken } from "../../src/lib/ids";
import { freeLoopbackPort } from "../../src/lib/ports";
import { startServer } from "../../src/main";
import { assertNoServerRunning, claimServerLock } from "../../src/ops/server-lock";
import { globals } from "../context";
import { socialctl } from "../hints";
import { CliError, emit, type GlobalOptions } from "../output";

/** The port of the official local Bot API server: a bot already set up for one finds this one there too. */
const DEFAULT_PORT = 8081;
const PERSON = "alice";
const BOT = "sandbox_bot";
/** What the person starts with, so a bot's invoices can be paid at once. */
const STARTING_STARS = 1000;
/**
 * The sandbox's settings: registration open, webhooks and file URLs on this machine allowed, and
 * no per-address request budget, since every request comes from one loopback address (the
 * browser, a bot's test suite scripting the person with `as`, the `as` commands' streams), and a
 * suite run at a fast machine's pace would be refused (429) for being quick.
 */
const SANDBOX_CONFIG = {
  registration: "open",
  "bot.allowPrivateWebhooks": true,
  "limits.clientRps": 1_000_000,
} as const;

/** What SANDBOX_FILE keeps: enough to start a kept sandbox again with the same bot token. */
interface SandboxRecord {
  person: string;
  bot: string;
  token: string;
}

/**
 * The data dir of this run: the one given (empty, missing, or a sandbox kept earlier; never an
 * instance `dev` did not make, which it would delete) or a new one under the system's temp dir;
 * `made`: nothing was there before this run.
 */
function sandboxDir(opts: GlobalOptions): { dir: string; made: boolean } {
  if (opts.dataDir === undefined) return { dir: mkdtempSync(join(tmpdir(), "socialctl-dev-")), made: true };
  const dir = resolveDataDir(opts.dataDir);
  if (existsSync(join(dir, SANDBOX_FILE))) return { dir, made: false };
  if (isInitialised(dir))
    throw new CliError(`${dir} holds an instance 'socialctl dev' did not make; dev only uses an empty or new data dir`);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new CliError(`${dir} is not empty; give dev an empty or new data dir (it removes it when stopped)`);
  mkdirSync(dir, { recursive: true });
  return { dir, made: true };
}

/** The person and the bot, made on the first run (the chat with the bot is opened by the sign-in link). */
async function ensureCast(app: App): Promise<SandboxRecord> {
  const path = join(app.dataDir, SANDBOX_FILE);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as SandboxRecord;
  const now = app.clock.now();
  const person = await createUser(app.db, now, {
    email: `${PERSON}@sandbox.example`,
    username: PERSON,
    password: randomToken(18),
    displayName: "Alice",
    verified: true,
  });
  await app.hooks.emit("user:created", { userId: person.id });
  await grantStars(app, person.id, STARTING_STARS, "sandbox starting balance");
  const bot = await createBot(app, { ownerId: person.id, username: BOT, name: "Sandbox Bot" });
  // what the empty chat shows above its Start button, until the bot sets its own
  await updateBotSettings(app, bot.bot.id, {
    description: "Run your bot with the token socialctl dev printed, then press Start.",
  });
  const record: SandboxRecord = { person: PERSON, bot: BOT, token: bot.token };
  // the data dir is the sandbox's only key, and it already holds everything the token opens
  writeFileSync(path, JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });
  return record;
}

async function requireBot(app: App, username: string) {
  const found = await findBotByUsername(app.db, username);
  if (!found) throw new CliError(`the sandbox's bot ${username} is gone from ${app.dataDir}`);
  return found;
}

/** A fresh one-time link that signs a browser in as the person and opens their chat with the bot. */
async function signInLink(app: App, cast: SandboxRecord): Promise<string> {
  const person = await requireUserByUsername(app.db, cast.person);
  const token = await issueSignInLink(app, person.id);
  return `${app.config.baseUrl}${SIGN_IN_LINK_PATH}?t=${token}`;
}

function describe(
  out: ReturnType<typeof summary>,
  opts: GlobalOptions,
  keep: boolean,
  interactiveStdin: boolean,
): string {
  const byRoot = new Map<string, string[]>();
  for (const [lib, root] of Object.entries(out.bot.libraries) as Array<[BotLibrary, string]>)
    byRoot.set(root, [...(byRoot.get(root) ?? []), BOT_LIBRARY_LABELS[lib]]);
  const cli = socialctl({ ...opts, dataDir: out.dataDir });
  const as = `${cli} as ${out.person.username}`;
  const bot = `@${out.bot.username}`;
  return [
    `socialctl dev: a throwaway instance at ${out.url}`,
    `  data: ${out.dataDir} (${keep ? "kept when you stop it" : "removed when you stop it; --keep keeps it"})`,
    "",
    `Your bot ${bot}`,
    `  token: ${out.bot.token}`,
    ...[...byRoot].map(([root, libs]) => `  ${libs.join(", ")}: ${root}`),
    `  its log: ${cli} bot log ${out.bot.username} --follow`,
    "",
    `Be ${out.person.username} in the chat with the bot: open this link (once, within 15 minutes${interactiveStdin ? "; Enter prints a new one" : ""})`,
    `  ${out.signInLink}`,
    "",
    `Or script ${out.person.username} from another terminal or a test:`,
    `  ${as} send ${bot} /start`,
    `  ${as} press ${bot} 'Button text'`,
    `  ${as} pay ${bot}`,
    `  ${as} read ${bot} --follow`,
    "",
    `Ctrl-C stops it${keep ? "" : " and removes its data"}.`,
  ].join("\n");
}

function summary(url: string, dataDir: string, cast: SandboxRecord, link: string) {
  return {
    url,
    dataDir,
    person: { username: cast.person },
    bot: { username: cast.bot, token: cast.token, ...libraryApiRoots(url) },
    signInLink: link,
  };
}

/** socialctl dev [--port N] [--keep]: a throwaway instance with a person and a bot, for bot developers. */
export function registerDev(program: Command) {
  program
    .command("dev")
    .description("a throwaway instance for bot development: a person, a bot and its token, a sign-in link")
    .option("--port <n>", `listen port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)`)
    .option("--keep", "keep the data dir when stopped (start it again with --data-dir DIR dev)")
    .action(async (flags: { port?: string; keep?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const port = flags.port === undefined ? DEFAULT_PORT : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError("--port must be a port number (0 to 65535)");
      const keep = flags.keep === true;
      const { dir: dataDir, made } = sandboxDir(opts);
      assertNoServerRunning(dataDir, "starting another");
      const removeData = () => rmSync(dataDir, { recursive: true, force: true });
      let server: Awaited<ReturnType<typeof startServer>> | undefined;
      let stopping = false;
      // installed before the start, so an interrupted start leaves nothing behind either
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await server?.stop();
        // a start interrupted before it served leaves a kept sandbox as it was
        const remove = !keep && (server !== undefined || made);
        if (remove) removeData();
        if (!opts.json)
          process.stderr.write(
            remove
              ? `\nStopped; ${dataDir} removed\n`
              : `\nStopped; the data is kept in ${dataDir} (start it again: ${socialctl({ ...opts, dataDir })} dev --keep)\n`,
          );
        process.exit(0);
      };
      // SIGHUP: the terminal it ran in was closed
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop());
      try {
        // kept in the config, so `as`, `bot log` and a later run see the same instance
        storeConfigValues(dataDir, SANDBOX_CONFIG);
        server = await startServer({
          dataDir,
          // loopback only: registration is open and the sign-in link needs no password
          // warnings and errors only: what a developer reads here is the summary below, and a
          // bot's calls are one command away (`bot log --follow`)
          overrides: { port: port === 0 ? freeLoopbackPort() : port, host: "127.0.0.1", "log.level": "warn" },
          // the app opens (or makes) the person's chat with the bot from this address
          sandbox: { landing: `/dashboard/messages?user=${BOT}` },
        });
      } catch (err) {
        // a start that failed leaves nothing of its own, and a kept sandbox as it was
        if (made) removeData();
        if (/already in use/.test((err as Error).message))
          throw new CliError(`port ${port} is already in use: pass --port N (0 picks a free one)`);
        throw err;
      }
      claimServerLock(server);
      const { app } = server;

      const cast = await ensureCast(app);
      const out = summary(app.config.baseUrl, dataDir, cast, await signInLink(app, cast));
      const interactiveStdin = Boolean(process.stdin.isTTY) && !opts.json;
      emit(opts, out, () => describe(out, opts, keep, interactiveStdin));
      if (!opts.json) {
        // the first sign that the token and root were given right
        const { bot } = await requireBot(app, cast.bot);
        const unfollow = botLogOf(app).follow(bot.id, {
          entry: (e) => {
            unfollow();
            process.stdout.write(`\n@${cast.bot} is connected: its first call was ${e.method}.\n`);
          },
          end: () => {},
        });
      }
      if (interactiveStdin) {
        createInterface({ input: process.stdin }).on("line", () => {
          void signInLink(app, cast).then((link) => process.stdout.write(`New sign-in link: ${link}\n`));
        });
      }
    });
}
