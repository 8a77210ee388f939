import type { Subprocess } from "bun";

/**
 * A test's handle on `socialctl dev`: a throwaway instance with a person and a bot, and the
 * person scripted with `socialctl as`. SOCIALCTL is how to run socialctl (default: the
 * `socialctl` executable on PATH; e.g. "npx socialctl").
 */
const SOCIALCTL = (process.env.SOCIALCTL ?? "socialctl").split(" ");

/** A chat message as `socialctl as … --json` prints it (the Client API's message). */
export interface Message {
  id: string;
  content: string;
  sender: { username: string; isBot: boolean };
  replyMarkup: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> } | null;
  invoice: { title: string; totalAmount: number; status: string } | null;
  editedAt: string | null;
}

export interface Sandbox {
  token: string;
  apiRoot: string;
  person: string;
  bot: string;
  dataDir: string;
  /** `socialctl as PERSON ARGS… --json`: its JSON answer; throws with socialctl's one-line reason */
  as(...args: string[]): Promise<any>;
  /** the newest LIMIT messages of the person's chat with the bot, oldest first */
  read(limit?: number): Promise<Message[]>;
  /** follows the person's chat with the bot: `next` resolves with the next message (new or edited) that matches */
  chat(): Promise<Chat>;
  stop(): Promise<void>;
}

export interface Chat {
  next(matches: (m: Message) => boolean, timeoutMs?: number): Promise<Message>;
  close(): void;
}

/** Lines of a child's output, as they come. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
    }
  }
}

/** Starts `socialctl dev --json --port 0` and resolves once it is serving. */
export async function startSandbox(): Promise<Sandbox> {
  const dev = Bun.spawn([...SOCIALCTL, "--json", "dev", "--port", "0"], { stdout: "pipe", stderr: "pipe" });
  const first = await lines(dev.stdout).next();
  if (first.done) throw new Error(`socialctl dev did not start: ${await new Response(dev.stderr).text()}`);
  const started = JSON.parse(first.value);
  const global = ["--data-dir", started.dataDir, "--json"];
  const run = async (...args: string[]): Promise<string> => {
    const run = Bun.spawn([...SOCIALCTL, ...global, "as", started.person.username, ...args], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    if (code !== 0) throw new Error(err.trim());
    return out.trim();
  };
  const followers: Subprocess[] = [];
  return {
    token: started.bot.token,
    apiRoot: started.bot.apiRoot,
    person: started.person.username,
    bot: `@${started.bot.username}`,
    dataDir: started.dataDir,
    as: async (...args) => JSON.parse(await run(...args)),
    read: async (limit = 20) =>
      (await run("read", `@${started.bot.username}`, "--limit", String(limit)))
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    async chat() {
      const read = Bun.spawn(
        [
          ...SOCIALCTL,
          ...global,
          "as",
          started.person.username,
          "read",
          `@${started.bot.username}`,
          "--follow",
          "--limit",
          "0",
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      followers.push(read);
      // it says so on stderr once it follows: nothing sent after that is missed
      const said = await lines(read.stderr).next();
      if (said.done) throw new Error("socialctl as … read --follow ended before following");
      const seen: Message[] = [];
      let wake = () => {};
      void (async () => {
        for await (const line of lines(read.stdout)) {
          seen.push(JSON.parse(line));
          wake();
        }
      })();
      return {
        async next(matches, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            // socialctl ended with its reason (--json prints it as {"error": …})
            const ended = seen.find((m) => "error" in m && !("id" in m)) as { error?: { message: string } } | undefined;
            if (ended?.error) throw new Error(`socialctl as … read --follow: ${ended.error.message}`);
            const at = seen.findIndex(matches);
            if (at >= 0) return seen.splice(0, at + 1).at(-1)!;
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; saw ${JSON.stringify(seen)}`);
            await new Promise<void>((resolve) => {
              wake = resolve;
              setTimeout(resolve, left);
            });
          }
        },
        close: () => read.kill("SIGINT"),
      };
    },
    async stop() {
      for (const f of followers) f.kill("SIGINT");
      // Ctrl-C: the sandbox stops and removes its data
      dev.kill("SIGINT");
      await dev.exited;
    },
  };
}
