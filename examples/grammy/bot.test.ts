import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Bot } from "grammy";
import { createBot } from "./bot";
import { startSandbox, type Sandbox } from "./sandbox";

/*
 * The bot's own test: a throwaway instance from `socialctl dev`, the bot polling it, and a
 * person scripted with `socialctl as` (SOCIALCTL says how to run socialctl).
 */

let sandbox: Sandbox;
let bot: Bot;
/** Each test runs socialctl a few times and waits for the bot: more than bun's 5 s default. */
const SLOW = 30_000;

beforeAll(async () => {
  sandbox = await startSandbox();
  bot = createBot(sandbox.token, sandbox.apiRoot);
  void bot.start();
}, SLOW);

afterAll(async () => {
  await bot.stop();
  await sandbox.stop();
}, SLOW);

test(
  "greets with two buttons, answers a press and edits its message",
  async () => {
    const chat = await sandbox.chat();
    await sandbox.as("send", sandbox.bot, "/start");
    const welcome = await chat.next((m) => m.sender.isBot);
    expect(welcome.content).toBe("Welcome! Tea or coffee?");
    expect(welcome.replyMarkup?.inline_keyboard[0]!.map((b) => b.text)).toEqual(["Tea", "Coffee"]);

    const pressed = await sandbox.as("press", sandbox.bot, "Coffee");
    expect(pressed.answer.text).toBe("One coffee coming up");
    const edited = await chat.next((m) => m.id === welcome.id && m.editedAt !== null);
    expect(edited.content).toBe("You chose coffee.");
    chat.close();
  },
  SLOW,
);

test(
  "sells a cup of tea for stars",
  async () => {
    const chat = await sandbox.chat();
    await sandbox.as("send", sandbox.bot, "/buy");
    const invoice = await chat.next((m) => m.invoice !== null);
    expect(invoice.invoice).toMatchObject({ title: "Tea", totalAmount: 5, status: "unpaid" });

    const paid = await sandbox.as("pay", sandbox.bot);
    expect(paid.status).toBe("paid");
    expect((await chat.next((m) => m.sender.isBot && m.invoice === null)).content).toBe("Thanks for the 5 stars!");
    chat.close();
  },
  SLOW,
);

test(
  "echoes text, and read shows the conversation",
  async () => {
    const chat = await sandbox.chat();
    await sandbox.as("send", sandbox.bot, "hello there");
    expect((await chat.next((m) => m.sender.isBot)).content).toBe("You said: hello there");
    chat.close();
    expect((await sandbox.read(2)).map((m) => m.content)).toEqual(["hello there", "You said: hello there"]);
  },
  SLOW,
);
