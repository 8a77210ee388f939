/**
 * The bot libraries the product knows, and the one source of the starter bots shown for them:
 * the app's My bots screen fills them with the instance's root and the bot's token, docs/bot-api.md
 * holds them rendered for an example instance (`bun scripts/bot-snippets.ts` writes that section;
 * src/lib/bot-libraries.test.ts checks it), and src/botapi/snippets.test.ts runs each against a
 * real server.
 */

export type BotLibrary = "grammy" | "telegraf" | "node-telegram-bot-api" | "python-telegram-bot";

/** How each library is named to a person. */
export const BOT_LIBRARY_LABELS: Record<BotLibrary, string> = {
  grammy: "grammY",
  telegraf: "Telegraf",
  "node-telegram-bot-api": "node-telegram-bot-api",
  "python-telegram-bot": "python-telegram-bot",
};

/**
 * The server setting each bot library takes, from the instance's base URL. grammY, Telegraf
 * and node-telegram-bot-api append `/bot<TOKEN>/<method>` to an API root (the instance root;
 * `…/api/bot/` would become `…/api/bot/bot<TOKEN>/…`, a 404); python-telegram-bot appends
 * `<TOKEN>/<method>` to a base_url that ends in `/bot`.
 */
export function libraryApiRoots(baseUrl: string) {
  const root = baseUrl.replace(/\/+$/, "");
  const libraries: Record<BotLibrary, string> = {
    grammy: root,
    telegraf: root,
    "node-telegram-bot-api": root,
    "python-telegram-bot": `${root}/bot`,
  };
  return { apiRoot: root, libraries };
}

export interface BotSnippet {
  /** stable key: the library, with the major version where a library has two forms */
  id: "grammy" | "telegraf" | "node-telegram-bot-api" | "python-telegram-bot" | "python-telegram-bot-13";
  library: BotLibrary;
  /** the heading a person sees, e.g. "python-telegram-bot 13 (Debian 12's package)" */
  title: string;
  language: "javascript" | "python";
  /** the file name the install and run lines expect */
  file: string;
  install: string;
  run: string;
  code: string;
}

/** What a starter bot answers to /start; the rest of the text it is sent comes back as it was. */
export const SNIPPET_GREETING = "Hello! Send me a message and I will send it back.";

/**
 * The starter bot for each library: /start greets, any other text is echoed. BASE_URL is the
 * instance's root, TOKEN the bot's token (or a placeholder where it is not shown).
 */
export function botSnippets(baseUrl: string, token: string): BotSnippet[] {
  const { apiRoot, libraries } = libraryApiRoots(baseUrl);
  // JSON's string syntax is also a valid JavaScript and Python literal for these values
  const q = (s: string) => JSON.stringify(s);
  const [tok, root, greeting] = [q(token), q(apiRoot), q(SNIPPET_GREETING)];
  const ptbBase = q(libraries["python-telegram-bot"]);
  const ptbFiles = q(`${apiRoot}/file/bot`);
  return [
    {
      id: "grammy",
      library: "grammy",
      title: "grammY",
      language: "javascript",
      file: "bot.mjs",
      install: "npm install grammy",
      run: "node bot.mjs",
      code: `import { Bot } from "grammy";

const bot = new Bot(${tok}, { client: { apiRoot: ${root} } });
bot.command("start", (ctx) => ctx.reply(${greeting}));
bot.on("message:text", (ctx) => ctx.reply(ctx.message.text));
bot.start({ onStart: (me) => console.log(\`@\${me.username} is running\`) });
`,
    },
    {
      id: "telegraf",
      library: "telegraf",
      title: "Telegraf",
      language: "javascript",
      file: "bot.mjs",
      install: "npm install telegraf",
      run: "node bot.mjs",
      code: `import { Telegraf } from "telegraf";
import { message } from "telegraf/filters";

const bot = new Telegraf(${tok}, { telegram: { apiRoot: ${root} } });
bot.start((ctx) => ctx.reply(${greeting}));
bot.on(message("text"), (ctx) => ctx.reply(ctx.message.text));
bot.launch(() => console.log(\`@\${bot.botInfo.username} is running\`));
`,
    },
    {
      id: "node-telegram-bot-api",
      library: "node-telegram-bot-api",
      title: "node-telegram-bot-api 2",
      language: "javascript",
      file: "bot.mjs",
      install: "npm install node-telegram-bot-api@2",
      run: "node bot.mjs",
      code: `import { Bot } from "node-telegram-bot-api";
import { run } from "node-telegram-bot-api/node";

const bot = new Bot(${tok}, { apiRoot: ${root} });
bot.command("start", (ctx) => ctx.reply(${greeting}));
bot.hears(/.+/s, (ctx) => ctx.reply(ctx.message.text));
await run(bot);
`,
    },
    {
      id: "python-telegram-bot",
      library: "python-telegram-bot",
      title: "python-telegram-bot 20 or later",
      language: "python",
      file: "bot.py",
      install: 'pip install "python-telegram-bot>=20"',
      run: "python3 bot.py",
      code: `from telegram import Update
from telegram.ext import ApplicationBuilder, CommandHandler, ContextTypes, MessageHandler, filters


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.message.reply_text(${greeting})


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.message.reply_text(update.message.text)


app = (
    ApplicationBuilder()
    .token(${tok})
    .base_url(${ptbBase})
    .base_file_url(${ptbFiles})
    .build()
)
app.add_handler(CommandHandler("start", start))
app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
app.run_polling()
`,
    },
    {
      id: "python-telegram-bot-13",
      library: "python-telegram-bot",
      title: "python-telegram-bot 13 (Debian 12's python3-python-telegram-bot)",
      language: "python",
      file: "bot.py",
      install: "apt install python3-python-telegram-bot",
      run: "python3 bot.py",
      code: `from telegram.ext import CommandHandler, Filters, MessageHandler, Updater


def start(update, context):
    update.message.reply_text(${greeting})


def echo(update, context):
    update.message.reply_text(update.message.text)


updater = Updater(
    ${tok},
    base_url=${ptbBase},
    base_file_url=${ptbFiles},
    use_context=True,
)
updater.dispatcher.add_handler(CommandHandler("start", start))
updater.dispatcher.add_handler(MessageHandler(Filters.text & ~Filters.command, echo))
updater.start_polling()
updater.idle()
`,
    },
  ];
}

/** The example instance and token placeholder the documentation's copy is rendered with. */
export const DOCS_BASE_URL = "https://social.example.com";
export const DOCS_TOKEN = "<TOKEN>";

/** Where docs/bot-api.md's rendered copy starts and ends. */
export const DOCS_SNIPPETS_START =
  "<!-- starter bots: rendered from src/lib/bot-libraries.ts by `bun scripts/bot-snippets.ts` -->";
export const DOCS_SNIPPETS_END = "<!-- end of starter bots -->";

/** The starter bots as docs/bot-api.md shows them, markers included. */
export function botSnippetsMarkdown(): string {
  const fence = { javascript: "js", python: "python" } as const;
  const parts = botSnippets(DOCS_BASE_URL, DOCS_TOKEN).map(
    (s) =>
      `**${s.title}**: \`${s.install}\`, save as \`${s.file}\`, run \`${s.run}\`.\n\n` +
      `\`\`\`${fence[s.language]}\n${s.code}\`\`\``,
  );
  return [DOCS_SNIPPETS_START, ...parts, DOCS_SNIPPETS_END].join("\n\n");
}
