import { afterAll, describe, expect, test } from "bun:test";
import { Bot, InlineKeyboard } from "grammy";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SOCIALCTL, CLI_PROCESS_BOUND_MS, cliHarness, runCli, startServeProcess } from "../../src/testing/cli";
import { freeLoopbackPort } from "../../src/testing/ports";

const { tmp, cleanup, expectOneLineFailure } = cliHarness();
/** Every sandbox started here: one a failed test left running is stopped (and its data removed) at the end. */
const started: Array<ReturnType<typeof Bun.spawn>> = [];
afterAll(async () => {
  for (const proc of started) if (proc.exitCode === null) proc.kill("SIGINT");
  await Promise.all(started.map((proc) => proc.exited));
  cleanup();
});

/** The line of OUT that says where a `--json` sandbox runs (a whole JSON object with its data dir), if printed yet. */
const readyLine = (out: string) =>
  out.split("\n").find((line) => {
    try {
      return "dataDir" in JSON.parse(line);
    } catch {
      return false;
    }
  });

/**
 * `socialctl ARGS dev …` in a child process, as a developer starts it; resolves once it printed
 * where it runs. With `--json`, `out` is that line alone: a log line may come before it.
 */
async function startDev(args: string[]) {
  const proc = Bun.spawn([...SOCIALCTL, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const json = args.includes("--json");
  let out = "";
  const deadline = Date.now() + CLI_PROCESS_BOUND_MS;
  while (!out.includes("Ctrl-C stops") && !(json && readyLine(out)) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`socialctl dev ended: ${out}${await new Response(proc.stderr).text()}`);
    out += decoder.decode(value);
  }
  const rest = (async () => {
    let tail = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return tail;
      tail += decoder.decode(value);
    }
  })();
  /** Ctrl-C, as the developer stops it; resolves with its exit code and what it printed after starting. */
  const interrupt = async () => {
    proc.kill("SIGINT");
    const [code, stderr, stdout] = await Promise.all([proc.exited, new Response(proc.stderr).text(), rest]);
    return { code, stderr, stdout };
  };
  return { proc, out: json ? (readyLine(out) ?? out) : out, interrupt };
}

const field = (out: string, pattern: RegExp): string => {
  const m = pattern.exec(out);
  if (!m) throw new Error(`${pattern} not in:\n${out}`);
  return m[1]!;
};

describe("socialctl dev and socialctl as", () => {
  test("a grammY bot against the printed token and root, driven by as send, press, pay and read --json; Ctrl-C removes the data", async () => {
    const port = freeLoopbackPort();
    const dev = await startDev(["dev", "--port", String(port)]);
    const token = field(dev.out, /^Your bot @sandbox_bot\n  token: (\S+)$/m);
    const root = field(dev.out, /^ {2}grammY, Telegraf, node-telegram-bot-api: (\S+)$/m);
    const dataDir = field(dev.out, /^ {2}data: (\S+) \(removed when you stop it/m);
    expect(root).toBe(`http://127.0.0.1:${port}`);
    expect(dev.out).toContain(`  python-telegram-bot: ${root}/bot`);
    expect(dev.out).toMatch(new RegExp(`^  ${root}/auth/sign-in-link\\?t=\\S+$`, "m"));
    expect(dev.out).toContain(` --data-dir ${dataDir} as alice send @sandbox_bot /start`);
    expect(existsSync(dataDir)).toBe(true);

    const seen: string[] = [];
    const bot = new Bot(token, { client: { apiRoot: root } });
    bot.use((ctx, next) => {
      seen.push(
        ctx.message?.text ??
          ctx.callbackQuery?.data ??
          (ctx.message?.successful_payment ? "successful_payment" : Object.keys(ctx.update)[1]!),
      );
      return next();
    });
    const keyboard = new InlineKeyboard().text("Red", "red").url("Docs", "https://example.com/");
    bot.command("start", (ctx) => ctx.reply("Pick one", { reply_markup: keyboard }));
    bot.callbackQuery("red", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "red it is", show_alert: true });
      await ctx.editMessageText("Picked red", { reply_markup: keyboard });
    });
    bot.command("buy", (ctx) => ctx.replyWithInvoice("Pen", "A pen", "pen-1", "XTR", [{ label: "Pen", amount: 7 }]));
    bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    bot.on("message:successful_payment", (ctx) => ctx.reply(`paid ${ctx.message.successful_payment.total_amount}`));
    void bot.start();
    const as = (...args: string[]) => runCli(["--data-dir", dataDir, "as", "alice", ...args]);
    const asJson = (...args: string[]) => runCli(["--data-dir", dataDir, "--json", "as", "alice", ...args]);
    try {
      const sent = await as("send", "@sandbox_bot", "/start");
      expect(sent.code).toBe(0);
      expect(sent.stdout).toMatch(/^\d\d:\d\d:\d\d alice: \/start\n$/);

      // the bot answers in its own time: read until it has
      let lines: any[] = [];
      for (let i = 0; i < 40 && lines.length < 2; i++) {
        const read = await asJson("read", "@sandbox_bot");
        expect(read.code).toBe(0);
        lines = read.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l));
        if (lines.length < 2) await Bun.sleep(250);
      }
      expect(lines.map((m) => [m.sender.username, m.content])).toEqual([
        ["alice", "/start"],
        ["sandbox_bot", "Pick one"],
      ]);
      expect(lines[1].replyMarkup.inline_keyboard[0].map((b: any) => b.text)).toEqual(["Red", "Docs"]);

      const pressed = await asJson("press", "@sandbox_bot", "Red");
      expect(pressed.json).toEqual({
        messageId: lines[1].id,
        answer: { text: "red it is", showAlert: true, url: null },
      });
      const link = await as("press", "sandbox_bot", "Docs");
      expect(link.stdout).toBe("The button opens https://example.com/\n");
      const human = await as("read", "@sandbox_bot", "--limit", "1");
      expect(human.stdout).toMatch(/^\d\d:\d\d:\d\d @sandbox_bot: Picked red \(edited\)\n {2}\[Red\] \[Docs\]\n$/);

      expect((await as("send", "@sandbox_bot", "/buy")).code).toBe(0);
      let paid: Awaited<ReturnType<typeof asJson>> | undefined;
      for (let i = 0; i < 40; i++) {
        paid = await asJson("pay", "@sandbox_bot");
        if (paid.code === 0 || !/is an invoice/.test(paid.stderr)) break;
        await Bun.sleep(250);
      }
      expect(paid!.json).toMatchObject({ status: "paid", balance: 993 });
      const again = await asJson("pay", "@sandbox_bot");
      expect(again.code).toBe(1);
      expect(again.stderr).toBe("socialctl: This invoice has already been paid\n");

      const followed = await as("read", "@sandbox_bot", "--limit", "1");
      expect(followed.stdout).toContain("@sandbox_bot: paid 7");
      expect(seen).toEqual(["/start", "red", "/buy", "pre_checkout_query", "successful_payment"]);
    } finally {
      await bot.stop();
    }

    const stopped = await dev.interrupt();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain(`Stopped; ${dataDir} removed`);
    // grammY's first call: the token and root were right
    expect(stopped.stdout).toBe("\n@sandbox_bot is connected: its first call was getMe.\n");
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  test("read --follow prints each new and edited message as it comes, until interrupted; the sandbox takes requests at any pace", async () => {
    const dev = await startDev(["--json", "dev", "--port", "0"]);
    const sandbox = JSON.parse(dev.out);
    const follow = Bun.spawn(
      [...SOCIALCTL, "--data-dir", sandbox.dataDir, "--json", "as", "alice", "read", "@sandbox_bot", "--follow"],
      { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
    );
    const stderr = follow.stderr.getReader();
    expect(new TextDecoder().decode((await stderr.read()).value)).toBe(
      "Following the chat with @sandbox_bot; Ctrl-C stops.\n",
    );
    const bot = new Bot(sandbox.bot.token, { client: { apiRoot: sandbox.bot.apiRoot } });
    bot.on("message:text", async (ctx) => {
      const m = await ctx.reply(`echo ${ctx.message.text}`);
      await ctx.api.editMessageText(m.chat.id, m.message_id, `edited ${ctx.message.text}`);
    });
    void bot.start();
    try {
      const reader = follow.stdout.getReader();
      let text = "";
      await runCli(["--data-dir", sandbox.dataDir, "as", "alice", "send", "@sandbox_bot", "one"]);
      for (let i = 0; i < 100 && text.split("\n").length < 4; i++)
        text += new TextDecoder().decode((await reader.read()).value);
      const lines = text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.map((m) => [m.content, m.editedAt === null])).toEqual([
        ["one", true],
        ["echo one", true],
        ["edited one", false],
      ]);
      follow.kill("SIGINT");
      expect(await follow.exited).toBe(0);
      // a bot's suite scripting the person on a fast machine: everything comes from one loopback
      // address, far past an instance's default budget of 20 a second, and none is refused
      const burst = await Promise.all(
        Array.from({ length: 60 }, () => fetch(`${sandbox.url}/api/social/feed`).then((r) => r.status)),
      );
      expect(burst.filter((status) => status === 429)).toEqual([]);
    } finally {
      await bot.stop();
      follow.kill();
    }
    expect((await dev.interrupt()).code).toBe(0);
    expect(existsSync(sandbox.dataDir)).toBe(false);
  }, 90_000);

  test("--keep keeps the data; dev on it again resumes with the same token; serve never takes its sign-in links", async () => {
    const dataDir = join(tmp(), "sandbox");
    const first = await startDev(["--data-dir", dataDir, "--json", "dev", "--port", "0", "--keep"]);
    const started = JSON.parse(first.out);
    expect(started).toMatchObject({
      dataDir,
      person: { username: "alice" },
      bot: { username: "sandbox_bot", libraries: { "python-telegram-bot": `${started.url}/bot` } },
    });
    expect((await first.interrupt()).code).toBe(0);
    expect(existsSync(join(dataDir, "social.db"))).toBe(true);

    const second = await startDev(["--data-dir", dataDir, "--json", "dev", "--port", "0", "--keep"]);
    const resumed = JSON.parse(second.out);
    expect(resumed.bot.token).toBe(started.bot.token);
    // a link opens once
    const link = await fetch(resumed.signInLink, { redirect: "manual" });
    expect(link.status).toBe(303);
    expect(link.headers.get("location")).toBe("/dashboard/messages?user=sandbox_bot");
    expect(link.headers.getSetCookie().some((c) => c.startsWith("auth_access_token="))).toBe(true);
    expect((await fetch(resumed.signInLink, { redirect: "manual" })).status).toBe(410);
    await expectOneLineFailure(
      runCli(["--data-dir", dataDir, "dev", "--port", "0", "--keep"]),
      /a server \(pid \d+, .*\) is running on/,
    );
    expect((await second.interrupt()).code).toBe(0);

    // the kept instance served by `serve`: a link made for it signs nobody in
    const third = await startDev(["--data-dir", dataDir, "--json", "dev", "--port", "0", "--keep"]);
    const fresh = JSON.parse(third.out).signInLink as string;
    await third.interrupt();
    const serve = await startServeProcess(dataDir);
    try {
      const res = await fetch(fresh.replace(/^http:\/\/[^/]+/, serve.listening.url), { redirect: "manual" });
      expect(res.status).not.toBe(303);
      expect(res.headers.getSetCookie().some((c) => c.startsWith("auth_access_token="))).toBe(false);
    } finally {
      serve.proc.kill("SIGTERM");
      await serve.proc.exited;
    }
  }, 120_000);

  test("failures are one line with a non-zero exit", async () => {
    const full = tmp();
    writeFileSync(join(full, "notes.txt"), "mine");
    const foreign = tmp();
    expect((await runCli(["--data-dir", foreign, "init", "--yes"])).code).toBe(0);
    const busy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const emptyDir = join(tmp(), "new");
    mkdirSync(emptyDir);
    try {
      const failures: Array<[string[], RegExp]> = [
        [["--data-dir", full, "dev"], /is not empty; give dev an empty or new data dir/],
        [["--data-dir", foreign, "dev"], /holds an instance 'socialctl dev' did not make/],
        [
          ["--data-dir", emptyDir, "dev", "--port", String(busy.port)],
          new RegExp(`port ${busy.port} is already in use: pass --port N`),
        ],
        [["dev", "--port", "http"], /--port must be a port number/],
        [
          ["--data-dir", foreign, "as", "alice", "send", "@x_bot", "hi"],
          /no server is running on .*: start one \(socialctl dev, or serve\), or give the address/,
        ],
        [["--data-dir", foreign, "as", "alice", "wave", "@x_bot"], /unknown action 'wave'/],
        [["--data-dir", foreign, "as", "alice", "send", "@x_bot"], /send needs the text/],
        [["--data-dir", foreign, "as", "alice", "pay", "@x_bot", "now"], /pay takes no text \(got 'now'\)/],
        [["--data-dir", foreign, "as", "alice", "send", "@x_bot", "hi", "--follow"], /--follow goes with read/],
      ];
      // one at a time: a shared machine may take seconds to start each
      for (const [args, reason] of failures) await expectOneLineFailure(runCli(args), reason);
    } finally {
      busy.stop(true);
    }
    // the data dir it was given and made stays as it was: nothing of a failed start is left
    expect(existsSync(join(emptyDir, "social.db"))).toBe(false);
  }, 120_000);
});
