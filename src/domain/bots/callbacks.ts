import { defineService, type App } from "../../app";
import { pubsub } from "../../cluster/pubsub";
import { randomToken } from "../../lib/ids";

/** How long a button press can be answered (the compatible API's one minute). */
export const PRESS_TTL_MS = 60_000;

export interface CallbackAnswer {
  text: string | null;
  showAlert: boolean;
  url: string | null;
}

/**
 * Presses are rows (so a callback_query queued before a restart can still be answered);
 * the person waiting for the answer is an in-process promise keyed by the press id, on the
 * node the press came to. The answer, claimed in the database by whichever node the bot
 * called, reaches it on the "bots:press-answered" topic.
 */
const ANSWERED = "bots:press-answered";

const waiting = defineService("bots:press-waiters", (app) => {
  const map = new Map<string, (answer: CallbackAnswer | null) => void>();
  pubsub(app).subscribe(ANSWERED, (message) => {
    const { id, answer } = JSON.parse(message) as { id: string; answer: CallbackAnswer };
    map.get(id)?.(answer);
  });
  return map;
});

const waiters = (app: App): Map<string, (answer: CallbackAnswer | null) => void> => app.services.get(waiting);

/** Registers a press of one of BOT's buttons; its id goes into the callback_query update. */
export async function openPress(
  app: App,
  botId: number,
): Promise<{ id: string; answer: Promise<CallbackAnswer | null> }> {
  const now = app.clock.now();
  await app.db.deleteFrom("bot_presses").where("expires_at", "<=", now).execute();
  const id = randomToken(12);
  await app.db
    .insertInto("bot_presses")
    .values({ id, bot_id: botId, expires_at: now + PRESS_TTL_MS, answered_at: null })
    .execute();
  const open = waiters(app);
  const answer = new Promise<CallbackAnswer | null>((resolve) => open.set(id, resolve));
  // past the bound the person waiting longest gets no answer now, as when the bot answers too late
  for (const [oldest, resolve] of open) {
    if (open.size <= app.config["limits.botAnswerWaits"]) break;
    open.delete(oldest);
    resolve(null);
  }
  return { id, answer };
}

/** Waits for the answer to press ID up to MS; null when it does not come in time. */
export async function awaitAnswer(
  app: App,
  id: string,
  answer: Promise<CallbackAnswer | null>,
  ms: number,
): Promise<CallbackAnswer | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
    waiters(app).delete(id);
  }
}

/**
 * The bot answers a press. False when the id is unknown, expired, another bot's, or was
 * already answered (each press is answered once).
 */
export async function answerPress(app: App, botId: number, id: string, answer: CallbackAnswer): Promise<boolean> {
  const now = app.clock.now();
  const claimed = await app.db
    .updateTable("bot_presses")
    .set({ answered_at: now })
    .where("id", "=", id)
    .where("bot_id", "=", botId)
    .where("answered_at", "is", null)
    .where("expires_at", ">", now)
    .returning("id")
    .executeTakeFirst();
  if (!claimed) return false;
  waiters(app);
  await pubsub(app).publish(ANSWERED, JSON.stringify({ id, answer }));
  return true;
}

/** Ends the wait on press ID now, with no answer: the bot will not get it (allowed_updates). */
export function cancelPress(app: App, id: string): void {
  waiters(app).get(id)?.(null);
}

/** Ends every person's wait for an answer now (with none): the server is stopping. */
export function releasePressWaiters(app: App): void {
  for (const resolve of [...waiters(app).values()]) resolve(null);
}
