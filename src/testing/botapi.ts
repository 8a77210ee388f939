import { expect } from "bun:test";
import type { ConfigKey } from "../config";
import type { TestClient } from "./client";
import { signedInClient } from "./fixtures";
import { startTestServer, type TestServer } from "./server";
import { waitFor } from "./wait";
import type { UserRow } from "../domain/users/table";
import type { App } from "../app";
import { findBotByUserId } from "../domain/bots/service";
import { botRuntime } from "../domain/bots/updates";
import { accountIdOf } from "../domain/bots/ids";

/**
 * Helpers for Bot API tests: a person on the Client API creates bots, talks to them and
 * watches their chat; waits are bounded.
 */

export interface BotWorld {
  server: TestServer;
  /** owns the bots the test creates */
  owner: TestClient;
  /** talks to them */
  person: TestClient;
  personUser: UserRow;
}

/** A test server with a bot owner and a person signed in. */
export async function botWorld(overrides: Partial<Record<ConfigKey, unknown>> = {}): Promise<BotWorld> {
  const server = await startTestServer(overrides);
  const owner = (await signedInClient(server)).client;
  const p = await signedInClient(server);
  return { server, owner, person: p.client, personUser: p.user };
}

// the shared bounded wait, re-exported for the Bot API tests that import it from here
export { waitFor };

/**
 * Waits until the server holds a long poll for TOKEN's bot. Sleeping a fixed time instead
 * races on a loaded machine: the next request can overtake the poll it means to follow.
 */
export async function waitForLongPoll(app: App, token: string): Promise<void> {
  const found = await findBotByUserId(app.db, accountIdOf(Number(token.split(":")[0])));
  if (!found) throw new Error("no bot for that token");
  await waitFor(() => botRuntime(app).waiters.has(found.bot.id), 5_000, "the long poll to be registered");
}

/** Creates a bot owned by the signed-in CLIENT; returns its token. */
export async function createBotViaApi(client: TestClient, username: string, name = "Test Bot"): Promise<string> {
  const res = await client.post("/api/bots", { username, name });
  expect(res.status).toBe(200);
  return res.body.data.token as string;
}

/** Opens the person's private chat with USERNAME (optionally with a start label). */
export async function openChat(client: TestClient, username: string, start?: string): Promise<string> {
  const res = await client.post(`/api/social/users/${username}/message`, start === undefined ? {} : { start });
  expect(res.status).toBe(200);
  return res.body.data.conversationId as string;
}

/** The newest messages of a chat as the person sees them, oldest first. */
export async function history(client: TestClient, conversationId: string): Promise<any[]> {
  const res = await client.get(`/api/social/messages/${conversationId}?limit=50`);
  expect(res.status).toBe(200);
  return [...(res.body.data.messages as any[])].reverse();
}

/** Waits until a message matching PRED appears in the chat. */
export async function waitForMessage(
  client: TestClient,
  conversationId: string,
  pred: (m: any) => boolean,
  ms = 5_000,
): Promise<any> {
  return waitFor(async () => (await history(client, conversationId)).find(pred), ms, "a message in the chat");
}

/** Calls a Bot API method with a JSON body, returning status and parsed body. */
export async function botCall(
  baseUrl: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${baseUrl}/bot${token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/**
 * The bot (its API at BOT_URL) sends CHAT_ID a "Tea" button and a 7-star invoice; the person
 * (PERSON, in conversation CID, perhaps on another node) presses the button and pays. The bot
 * must answer both (a callback answer "got <data>", an approved pre-checkout) wherever it
 * polls. Returns the invoice's message id.
 */
export async function pressButtonAndPay(
  botUrl: string,
  token: string,
  chatId: number,
  person: TestClient,
  cid: string,
): Promise<number> {
  const menu = await botCall(botUrl, token, "sendMessage", {
    chat_id: chatId,
    text: "pick",
    reply_markup: { inline_keyboard: [[{ text: "Tea", callback_data: "tea" }]] },
  });
  expect(menu.status).toBe(200);
  const press = await person.post(`/api/social/messages/${cid}/${menu.body.result.message_id}/callback`, {
    data: "tea",
  });
  expect(press.status).toBe(200);
  expect(press.body.data.answer.text).toBe("got tea");
  const invoice = await botCall(botUrl, token, "sendInvoice", {
    chat_id: chatId,
    title: "Tea",
    description: "A cup",
    payload: "tea-1",
    currency: "XTR",
    prices: [{ label: "cup", amount: 7 }],
  });
  expect(invoice.status).toBe(200);
  const paid = await person.post(`/api/social/messages/${cid}/${invoice.body.result.message_id}/pay`);
  expect(paid.status).toBe(200);
  expect(paid.body.data.status).toBe("paid");
  return invoice.body.result.message_id as number;
}

/** A 1×1 PNG. */
export const PNG_1x1 = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  ),
);

/**
 * Runs a bot in a child process (Telegraf under Node, python-telegram-bot under Debian's python)
 * until stop(); resolves once it printed "ready", or at once with `awaitReady: false` (a bot
 * that prints nothing of its own: its updates wait on the server until it polls). stop() ends
 * it by its pid and returns its stderr; `exited` settles if it ends by itself first.
 */
export async function runBotProcess(
  cmd: string[],
  readyMs = 15_000,
  { cwd, awaitReady = true }: { cwd?: string; awaitReady?: boolean } = {},
): Promise<{ stop(): Promise<string>; exited: Promise<number> }> {
  const child = Bun.spawn(cmd, { cwd, stdout: awaitReady ? "pipe" : "ignore", stderr: "pipe" });
  let stopped: Promise<string> | undefined;
  // once: its stderr can be read only once, and a caller may stop it from two paths
  const stop = () =>
    (stopped ??= (async () => {
      child.kill("SIGTERM");
      await Promise.race([child.exited, Bun.sleep(5000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
      return new Response(child.stderr).text();
    })());
  if (!awaitReady) return { stop, exited: child.exited };
  const reader = child.stdout!.getReader();
  const first = await Promise.race([reader.read(), Bun.sleep(readyMs).then(() => ({ value: undefined }))]);
  if (!new TextDecoder().decode(first.value ?? new Uint8Array()).includes("ready"))
    throw new Error(`the bot process did not start: ${await stop()}`);
  return { stop, exited: child.exited };
}
