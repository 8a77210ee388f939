import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { botSnippets, SNIPPET_GREETING, type BotSnippet } from "../lib/bot-libraries";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import { botWorld, createBotViaApi, openChat, runBotProcess, waitForMessage } from "../testing/botapi";

/**
 * The starter bots the app shows at bot creation and docs/bot-api.md lists, each written to a
 * file of its own with this server's root and a fresh bot's token, run as a person would run it,
 * and spoken to by a person on the Client API.
 */

/** Debian's python-telegram-bot 13 lives in the system python, not the pyenv one first on PATH. */
const PYTHON = "/usr/bin/python3";
const NODE_MODULES = join(import.meta.dir, "..", "..", "node_modules");
/** A process starting on a shared machine: replies get more time than the default wait. */
const WAIT_MS = 20_000;

let server: TestServer;
let owner: TestClient;
let person: TestClient;

beforeAll(async () => void ({ server, owner, person } = await botWorld()));
afterAll(() => server.stop());

/** SNIPPET (by id) filled for this server and TOKEN, saved in a fresh folder; returns the folder. */
function writeSnippet(id: BotSnippet["id"], token: string): { dir: string; snippet: BotSnippet } {
  const snippet = botSnippets(server.url, token).find((s) => s.id === id)!;
  const dir = mkdtempSync(join(tmpdir(), `snippet-${id}-`));
  writeFileSync(join(dir, snippet.file), snippet.code);
  // what `npm install <library>` would leave beside the file
  if (snippet.language === "javascript") symlinkSync(NODE_MODULES, join(dir, "node_modules"));
  return { dir, snippet };
}

/** Runs the starter bot ID as a new bot, @USERNAME, and holds the conversation every starter bot must hold. */
async function greetsAndEchoes(id: BotSnippet["id"], interpreter: string, username: string) {
  const token = await createBotViaApi(owner, username, "Starter");
  const { dir, snippet } = writeSnippet(id, token);
  const bot = await runBotProcess([interpreter, snippet.file], 0, { cwd: dir, awaitReady: false });
  // a snippet that dies at start (a wrong export, a wrong option) fails here with its own error
  const died = bot.exited.then(async (code) => {
    throw new Error(`${snippet.file} exited with ${code}: ${await bot.stop()}`);
  });
  try {
    const cid = await openChat(person, username);
    const reply = (said: string, answer: string) =>
      Promise.race([
        person
          .post(`/api/social/messages/${cid}`, { content: said })
          .then(() => waitForMessage(person, cid, (m) => m.content === answer && m.sender.isBot, WAIT_MS)),
        died,
      ]);
    await reply("/start", SNIPPET_GREETING);
    await reply("echo this, please", "echo this, please");
  } finally {
    died.catch(() => undefined);
    const stderr = await bot.stop();
    rmSync(dir, { recursive: true, force: true });
    expect(stderr).not.toMatch(/Traceback|TypeError|ReferenceError|SyntaxError/);
  }
}

describe("the starter bots shown when a bot is made", () => {
  test("grammY", () => greetsAndEchoes("grammy", "node", "grammy_starter_bot"), 45_000);
  test("Telegraf", () => greetsAndEchoes("telegraf", "node", "telegraf_starter_bot"), 45_000);
  test(
    "node-telegram-bot-api at the pinned version",
    () => greetsAndEchoes("node-telegram-bot-api", "node", "ntba_starter_bot"),
    45_000,
  );
  test(
    "python-telegram-bot 13 (Debian's)",
    () => greetsAndEchoes("python-telegram-bot-13", PYTHON, "ptb13_starter_bot"),
    45_000,
  );

  test("python-telegram-bot 20+: compiles (the suite has no copy of that version to run it with)", async () => {
    const { dir, snippet } = writeSnippet("python-telegram-bot", "7000000001:placeholder");
    try {
      const check = Bun.spawnSync([PYTHON, "-m", "py_compile", snippet.file], { cwd: dir, stderr: "pipe" });
      expect(check.stderr.toString()).toBe("");
      expect(check.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
