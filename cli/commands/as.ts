import type { Command } from "commander";
import { globals } from "../context";
import { CliError, emit, type GlobalOptions } from "../output";
import { PersonClient } from "../person-client";
import { readSse } from "../sse";

/** A chat message as the Client API shows it (the fields `as` reads; --json prints all of them). */
interface ShownMessage {
  id: string;
  messageId: number;
  conversationId: string;
  content: string;
  media: Array<{ type: string }>;
  replyMarkup: { inline_keyboard?: InlineButton[][] } | null;
  invoice: { title: string; totalAmount: number; status: string } | null;
  sender: { username: string; isBot: boolean };
  createdAt: string;
  editedAt: string | null;
}

interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
}

interface CallbackAnswer {
  text: string | null;
  showAlert: boolean;
  url: string | null;
}

const ACTIONS = ["send", "press", "pay", "read"] as const;
type Action = (typeof ACTIONS)[number];

/** Messages `press` and `pay` look through for the newest one that has the button or invoice. */
const SEARCHED = 100;

/** One message as a line (and its buttons, invoice or media under it), for people. */
export function formatMessage(m: ShownMessage): string {
  const invoice = m.invoice && `invoice: ${m.invoice.title}, ★${m.invoice.totalAmount} (${m.invoice.status})`;
  const media = m.media.map((x) => `(${x.type})`).join(" ");
  // an invoice or a picture without text is shown in the text's place
  const [head, ...under] = [m.content, media, invoice].filter((part): part is string => Boolean(part));
  const from = `${m.sender.isBot ? "@" : ""}${m.sender.username}`;
  return [
    `${m.createdAt.slice(11, 19)} ${from}: ${head ?? ""}${m.editedAt ? " (edited)" : ""}`,
    ...under.map((line) => `  ${line}`),
    ...(m.replyMarkup?.inline_keyboard ?? []).map((row) => `  ${row.map((b) => `[${b.text}]`).join(" ")}`),
  ].join("\n");
}

const printMessage = (opts: GlobalOptions, m: ShownMessage) =>
  process.stdout.write((opts.json ? JSON.stringify(m) : formatMessage(m)) + "\n");

/** The newest messages of the chat, newest first. */
async function newest(person: PersonClient, cid: string, limit: number): Promise<ShownMessage[]> {
  const page = await person.call<{ messages: ShownMessage[] }>("GET", `/social/messages/${cid}?limit=${limit}`);
  return page.messages;
}

async function press(opts: GlobalOptions, person: PersonClient, cid: string, name: string, text: string) {
  for (const m of await newest(person, cid, SEARCHED)) {
    const button = m.replyMarkup?.inline_keyboard?.flat().find((b) => b.text === text);
    if (!button) continue;
    if (button.callback_data === undefined) {
      if (button.url === undefined) throw new CliError(`the button '${text}' is neither a callback nor a link`);
      // a link button is opened by the person's app, not pressed at the bot
      return emit(opts, { messageId: m.id, url: button.url }, `The button opens ${button.url}`);
    }
    const { answer } = await person.call<{ answer: CallbackAnswer | null }>(
      "POST",
      `/social/messages/${cid}/${m.id}/callback`,
      { data: button.callback_data },
    );
    return emit(opts, { messageId: m.id, answer }, () =>
      answer === null
        ? `${name} did not answer the press in time`
        : answer.url
          ? `${name} answered with a link: ${answer.url}`
          : answer.text
            ? `${name} answered${answer.showAlert ? " (alert)" : ""}: ${answer.text}`
            : `${name} answered the press`,
    );
  }
  throw new CliError(`none of the last ${SEARCHED} messages with ${name} has a button '${text}'`);
}

async function pay(opts: GlobalOptions, person: PersonClient, cid: string, name: string) {
  const invoice = (await newest(person, cid, SEARCHED)).find((m) => m.invoice !== null);
  if (!invoice) throw new CliError(`none of the last ${SEARCHED} messages with ${name} is an invoice`);
  const result = await person.call<{
    status: "paid" | "declined" | "timeout";
    errorMessage?: string;
    balance?: number;
  }>("POST", `/social/messages/${cid}/${invoice.id}/pay`);
  if (result.status === "declined")
    throw new CliError(`${name} declined the payment${result.errorMessage ? `: ${result.errorMessage}` : ""}`);
  if (result.status === "timeout")
    throw new CliError(`${name} did not confirm the payment in time (nothing was charged)`);
  emit(
    opts,
    { messageId: invoice.id, ...result },
    `Paid ★${invoice.invoice!.totalAmount} for ${invoice.invoice!.title}; balance ★${result.balance}`,
  );
}

/**
 * Prints the newest LIMIT messages, oldest first; with FOLLOW, then each new or changed one
 * as it comes, until interrupted (a change, an edit or an invoice paid, prints the whole message again).
 */
async function read(
  opts: GlobalOptions,
  person: PersonClient,
  cid: string,
  name: string,
  limit: number,
  follow: boolean,
) {
  const abort = new AbortController();
  // the stream is open before the history is read: nothing sent in between is missed
  const stream = follow ? await person.events(abort.signal) : null;
  // each message as last printed: a change (an edit, an invoice paid) prints it again, a repeat does not
  const shown = new Map<string, string>();
  const show = (m: ShownMessage) => {
    const json = JSON.stringify(m);
    if (shown.get(m.id) === json) return;
    shown.set(m.id, json);
    printMessage(opts, m);
  };
  if (limit > 0) for (const m of (await newest(person, cid, limit)).reverse()) show(m);
  if (!stream) return;
  // on stderr, so --json output stays messages only; a test waits for it before it sends
  process.stderr.write(`Following the chat with ${name}; Ctrl-C stops.\n`);
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await readSse(stream.body!, (event, data) => {
      const e = data as { conversationId?: string; message?: ShownMessage };
      if ((event === "message:new" || event === "message:edited") && e.conversationId === cid && e.message)
        show(e.message);
      else if (event === "session:revoked") abort.abort();
    });
  } catch (err) {
    if (!abort.signal.aborted) throw new CliError(`the event stream ended: ${(err as Error).message}`);
  }
  if (!abort.signal.aborted) throw new CliError("the server ended the event stream (stopped?)");
}

/**
 * socialctl as USER send|press|pay|read @NAME …: a scripted person, for bots' own tests, speaking
 * the Client API to the serving instance as USER would from the app.
 */
export function registerAs(program: Command) {
  program
    .command("as <user> <action> <name> [text...]")
    .usage("<user> send @NAME TEXT | press @NAME BUTTON_TEXT | pay @NAME | read @NAME [--follow] [--limit N]")
    .description(
      "act as a person in their chat with @NAME on the running server: send a message, press an inline button (prints the callback answer), pay the newest invoice, read the chat (--json: one message per line)",
    )
    .option("--follow", "read: keep printing new and changed messages until interrupted")
    .option(
      "--limit <n>",
      "read: how many of the newest messages to print first (default 20; 0 with --follow: only new ones)",
    )
    .option("--url <origin>", "the server's address, when not the one it recorded in the data dir")
    .action(
      async (
        user: string,
        action: string,
        rawName: string,
        words: string[],
        flags: { follow?: boolean; limit?: string; url?: string },
        cmd: Command,
      ) => {
        const opts = globals(cmd);
        if (!ACTIONS.includes(action as Action))
          throw new CliError(`unknown action '${action}': use ${ACTIONS.join(", ")}`);
        const name = rawName.replace(/^@/, "");
        const text = words.join(" ");
        if ((action === "send" || action === "press") && text === "")
          throw new CliError(action === "send" ? "send needs the text to send" : "press needs the button's text");
        if ((action === "pay" || action === "read") && words.length > 0)
          throw new CliError(`${action} takes no text (got '${text}')`);
        const limit = flags.limit === undefined ? 20 : Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 0 || limit > 100)
          throw new CliError("--limit must be a whole number from 0 to 100");
        if (flags.follow && action !== "read") throw new CliError("--follow goes with read");

        const person = await PersonClient.open(opts, user.replace(/^@/, ""), flags.url);
        try {
          const { conversationId: cid } = await person.call<{ conversationId: string }>(
            "POST",
            `/social/users/${encodeURIComponent(name)}/message`,
            {},
          );
          const at = `@${name}`;
          if (action === "send") {
            const { message } = await person.call<{ message: ShownMessage }>("POST", `/social/messages/${cid}`, {
              content: text,
            });
            emit(opts, message, () => formatMessage(message));
          } else if (action === "press") await press(opts, person, cid, at, text);
          else if (action === "pay") await pay(opts, person, cid, at);
          else await read(opts, person, cid, at, limit, flags.follow === true);
        } finally {
          await person.close();
        }
      },
    );
}
