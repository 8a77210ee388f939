import { defineService, type App } from "../../app";
import { leases } from "../../cluster/leases";
import { pubsub } from "../../cluster/pubsub";
import type { Db } from "../../db";
import { precompiled, ShapedQuery } from "../../db/compiled";
import { literalLimit } from "../posts/keyset";
import { inTransaction, type Scope } from "../../db/transaction";
import { setNewest } from "../../lib/bounded";
import { AppError } from "../../lib/errors";
import { releasePressWaiters } from "./callbacks";
import { botAccessError, findBotByUserId } from "./service";
import type { BotRow, BotUpdateRow } from "./table";

/** Kinds of Update this server emits. */
export const UPDATE_TYPES = [
  "message",
  "edited_message",
  "callback_query",
  "my_chat_member",
  "pre_checkout_query",
  "poll",
  "poll_answer",
] as const;
export type UpdateType = (typeof UPDATE_TYPES)[number];

export interface QueuedUpdate {
  update_id: number;
  [type: string]: unknown;
}

interface Waiter {
  /** which getUpdates call this is: a newer one (higher), on any node, ends it with 409 */
  generation: number;
  /** the bot's account and the token hash the call was made with, to tell when they are revoked */
  botUserId: number;
  tokenHash: string;
  wake(): void;
  /** ends the waiting call with ERR (409: another getUpdates started; 401/403: token revoked, bot disabled) */
  fail(err: AppError): void;
}

/**
 * In-process state of the bot feature for one App: long-poll waiters and the webhook kick.
 * Each collection is bounded by a `limits.*` key; what is dropped past it is only a wait or a
 * hint, never an update (updates are rows until acknowledged).
 */
interface BotRuntime {
  /** parked getUpdates calls, the one parked longest first (limits.longPolls) */
  waiters: Map<number, Waiter>;
  /** the newest getUpdates generation heard of per bot, the bot heard from longest ago first (limits.pollingBots) */
  newest: Map<number, number>;
  onEnqueued: Set<(botId: number) => void>;
  /** the server is stopping: long polls answer at once */
  closing: boolean;
  /** per bot, until when a getUpdates conflict is held before it is answered (refusalHoldMs; limits.pollingBots) */
  conflictsHeldUntil: Map<number, number>;
  /** refusals being held (holdRefusal; limits.heldRefusals): a stopping server answers them at once */
  holds: Set<() => void>;
}

/*
 * Topics between nodes (cluster/pubsub.ts): in one process they are direct calls. "bots:queued"
 * `<botId> <1|0>`: BOT's queue or webhook changed (1: an update was queued, wake its long poll);
 * "bots:poll" `<botId> <generation>[ webhook]`: a getUpdates call started, or (with "webhook") the bot
 * set a webhook; older calls end with 409.
 */
const QUEUED = "bots:queued";
const POLL = "bots:poll";

const runtime = defineService<BotRuntime>("bots:runtime", (app) => {
  const rt: BotRuntime = {
    waiters: new Map(),
    newest: new Map(),
    onEnqueued: new Set(),
    closing: false,
    conflictsHeldUntil: new Map(),
    holds: new Set(),
  };
  const bus = pubsub(app);
  bus.subscribe(QUEUED, (message) => {
    const [botId, wake] = message.split(" ").map(Number) as [number, number];
    if (wake) rt.waiters.get(botId)?.wake();
    for (const listener of rt.onEnqueued) listener(botId);
  });
  bus.subscribe(POLL, (message) => {
    const [botId, generation, cause] = message.split(" ") as [string, string, string | undefined];
    const id = Number(botId);
    const gen = Number(generation);
    // a bot forgotten past the bound only loses the check of a call that raced a newer one on another node
    if (gen > (rt.newest.get(id) ?? 0)) setNewest(rt.newest, id, gen, app.config["limits.pollingBots"]);
    const waiter = rt.waiters.get(id);
    if (waiter && waiter.generation < gen) waiter.fail(cause === "webhook" ? pollEndedByWebhook() : pollSuperseded());
  });
  // messages may have been lost: every parked poll answers what is queued now, and the webhook worker looks again
  bus.onResync(() => {
    for (const waiter of [...rt.waiters.values()]) waiter.wake();
    for (const listener of rt.onEnqueued) listener(0);
  });
  return rt;
});

export const botRuntime = (app: App): BotRuntime => app.services.get(runtime);

/** Registers a listener called after any update is queued (the webhook worker). */
export function onUpdateEnqueued(app: App, listener: (botId: number) => void): () => void {
  const rt = botRuntime(app);
  rt.onEnqueued.add(listener);
  return () => rt.onEnqueued.delete(listener);
}

const parseAllowed = (bot: BotRow): string[] | null =>
  bot.allowed_updates ? (JSON.parse(bot.allowed_updates) as string[]) : null;

/**
 * Queues an update for a bot (durably) unless the bot excluded its type with allowed_updates,
 * then wakes its long poll or webhook delivery. Returns the update_id, or null when dropped.
 * In SCOPE (the change it belongs to, e.g. the person's message) it commits with that change,
 * without one in a transaction of its own; the bot is woken once it has committed.
 */
// every message to a bot queues one: compiled once (db/compiled.ts)
const insertUpdateQuery = precompiled((db: Db, v: { botId: number; type: UpdateType; payload: string; now: number }) =>
  db
    .insertInto("bot_updates")
    .values({ bot_id: v.botId, type: v.type, payload: v.payload, created_at: v.now })
    .returning("id"),
);

export async function enqueueUpdate(
  app: App,
  bot: BotRow,
  type: UpdateType,
  payload: unknown,
  scope?: Scope,
): Promise<number | null> {
  if (bot.disabled_at || bot.blocked_at) return null;
  const allowed = parseAllowed(bot);
  if (allowed && allowed.length > 0 && !allowed.includes(type)) return null;
  if (!scope) return inTransaction(app.storage, (own) => enqueueUpdate(app, bot, type, payload, own));
  // getUpdates acknowledges "every update below offset": an update committed after a
  // higher-numbered one was read would be deleted unseen (concurrent transactions on
  // PostgreSQL, on any node), so the bot's queue takes its ids in commit order
  await app.storage.lockQueue(scope.db, "bot_updates", bot.id);
  const [row] = await insertUpdateQuery(scope.db, {
    botId: bot.id,
    type,
    payload: JSON.stringify(payload),
    now: app.clock.now(),
  });
  scope.afterCommit(() => void pubsub(app).publish(QUEUED, `${bot.id} 1`));
  return row!.id;
}

/** Tells queue listeners (webhook delivery) that BOT's queue or webhook changed. */
export function notifyBotQueue(app: App, botId: number): void {
  botRuntime(app);
  void pubsub(app).publish(QUEUED, `${botId} 0`);
}

export const toUpdate = (row: Pick<BotUpdateRow, "id" | "type" | "payload">): QueuedUpdate => ({
  update_id: row.id,
  [row.type]: JSON.parse(row.payload),
});

/**
 * Stores the bot's allowed_updates (an empty list means all types, as the compatible API does).
 * Libraries repeat the same list on every getUpdates, so an unchanged list writes nothing.
 */
export async function setAllowedUpdates(app: App, bot: BotRow, allowed: string[] | undefined): Promise<void> {
  if (allowed === undefined) return;
  const value = allowed.length === 0 ? null : JSON.stringify([...new Set(allowed)]);
  if (value === bot.allowed_updates) return;
  await app.db.updateTable("bots").set({ allowed_updates: value }).where("id", "=", bot.id).execute();
}

/**
 * Acknowledges by offset: a positive offset forgets every update below it; a negative one
 * keeps only the last -offset updates. Acknowledged updates are deleted, so they never return.
 */
async function acknowledge(app: App, botId: number, offset: number): Promise<void> {
  if (offset > 0) {
    // a polling bot repeats the same offset until something new arrives: only a read then
    if ((await anyBelow(app.db, { botId, offset })).length > 0) await acknowledgeBelow(app.db, { botId, offset });
  } else if (offset < 0) {
    const keep = await app.db
      .selectFrom("bot_updates")
      .select("id")
      .where("bot_id", "=", botId)
      .where("delivered_at", "is", null)
      .orderBy("id", "desc")
      .limit(1)
      .offset(-offset - 1)
      .executeTakeFirst();
    if (keep) await app.db.deleteFrom("bot_updates").where("bot_id", "=", botId).where("id", "<", keep.id).execute();
  }
}

/*
 * getUpdates' statements, compiled once (every poll of every bot runs them; building the
 * Kysely query cost more than SQLite's answer from the bot_updates_queue index). Their LIMITs
 * are literals: SQLite prepares a statement with `LIMIT ?` again whenever the parameter is
 * bound, which made an empty queue's read many times dearer than the read itself.
 */
const acknowledgeBelow = precompiled((db: Db, v: { botId: number; offset: number }) =>
  db.deleteFrom("bot_updates").where("bot_id", "=", v.botId).where("id", "<", v.offset),
);

const anyBelow = precompiled((db: Db, v: { botId: number; offset: number }) =>
  db
    .selectFrom("bot_updates")
    .select("id")
    .where("bot_id", "=", v.botId)
    .where("id", "<", v.offset)
    .limit(literalLimit(1)),
);

/** One shape per limit (1–100, getUpdates' range; almost every library sends 100 or nothing). */
const pendingQuery = new ShapedQuery(
  (db: Db, v: { botId: number }, limit: number) =>
    db
      .selectFrom("bot_updates")
      .select(["id", "type", "payload"])
      .where("bot_id", "=", v.botId)
      .where("delivered_at", "is", null)
      .orderBy("id")
      .limit(literalLimit(limit)),
  String,
);

async function pending(app: App, botId: number, limit: number): Promise<QueuedUpdate[]> {
  return (await pendingQuery.execute(app.db, limit, { botId })).map(toUpdate);
}

/** A waiting getUpdates call ends with this when a newer call for the same bot starts. */
export const pollSuperseded = () =>
  new AppError(409, "POLL_SUPERSEDED", "Another getUpdates call for this bot took over");

/** A waiting getUpdates call ends with this when the bot sets a webhook. */
export const pollEndedByWebhook = () =>
  new AppError(409, "POLL_ENDED_BY_WEBHOOK", "A webhook was set for this bot: updates go there now");

/**
 * Ends the bot's waiting getUpdates, on any node, with 409: a webhook set now takes the updates
 * it would have answered, so none reaches both.
 */
export async function endPollForWebhook(app: App, botId: number): Promise<void> {
  botRuntime(app);
  const generation = await leases(app).next(`poll:${botId}`);
  await pubsub(app).publish(POLL, `${botId} ${generation} webhook`);
}

/**
 * How long a Bot API refusal waits before it is answered, as the compatible server holds them
 * so that a client retrying at once does not spin: a getUpdates conflict (409) is answered at
 * once only when the bot had none within the hold, a flood refusal (429) always waits.
 */
export function refusalHoldMs(app: App, botId: number | null, refusal: "poll-conflict" | "flood"): number {
  const hold = app.config["limits.botRefusalHoldMs"];
  if (refusal === "flood" || hold === 0) return hold;
  if (botId === null) return 0;
  const rt = botRuntime(app);
  const now = app.clock.now();
  if (now >= (rt.conflictsHeldUntil.get(botId) ?? 0)) {
    setNewest(rt.conflictsHeldUntil, botId, now + hold, app.config["limits.pollingBots"]);
    return 0;
  }
  return hold;
}

/** Waits MS on a timer (the event loop stays free); ends early when SIGNAL aborts or the server stops. */
export async function holdRefusal(app: App, ms: number, signal?: AbortSignal): Promise<void> {
  const rt = botRuntime(app);
  // past the bound a refusal is answered at once: a flood of held requests must not hold memory
  if (rt.closing || signal?.aborted || rt.holds.size >= app.config["limits.heldRefusals"]) return;
  await new Promise<void>((resolve) => {
    const release = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", release);
      rt.holds.delete(release);
      resolve();
    };
    const timer = setTimeout(release, ms);
    signal?.addEventListener("abort", release);
    rt.holds.add(release);
  });
}

/**
 * getUpdates: acknowledges by offset, then returns queued updates, waiting up to
 * timeoutMs for the first one (woken by enqueueUpdate on any node, no polling). A newer
 * call for the same bot, on any node, ends a waiting one with 409.
 */
export async function pollUpdates(
  app: App,
  bot: BotRow,
  opts: { offset?: number; limit: number; timeoutMs: number; signal?: AbortSignal },
): Promise<QueuedUpdate[]> {
  const rt = botRuntime(app);
  const generation = await leases(app).next(`poll:${bot.id}`);
  await pubsub(app).publish(POLL, `${bot.id} ${generation}`);
  if (opts.offset !== undefined) await acknowledge(app, bot.id, opts.offset);
  const first = await pending(app, bot.id, opts.limit);
  if (first.length > 0 || opts.timeoutMs <= 0 || rt.closing) return first;

  await new Promise<void>((resolve, reject) => {
    const onAbort = () => waiter.wake();
    const finish = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (rt.waiters.get(bot.id) === waiter) rt.waiters.delete(bot.id);
    };
    const waiter: Waiter = {
      generation,
      wake: () => {
        finish();
        resolve();
      },
      botUserId: bot.user_id,
      tokenHash: bot.token_secret_hash,
      fail: (err) => {
        finish();
        reject(err);
      },
    };
    const timer = setTimeout(waiter.wake, opts.timeoutMs);
    opts.signal?.addEventListener("abort", onAbort);
    // a newer call on another node whose message came before this call parked has won already
    if ((rt.newest.get(bot.id) ?? 0) > generation) return waiter.fail(pollSuperseded());
    rt.waiters.get(bot.id)?.fail(pollSuperseded());
    rt.waiters.set(bot.id, waiter);
    // past the bound the call parked longest answers now with what is queued, as at its timeout
    for (const parked of rt.waiters.values()) {
      if (rt.waiters.size <= app.config["limits.longPolls"]) break;
      parked.wake();
    }
    if (opts.signal?.aborted) waiter.wake();
  });
  // the token may have been reissued or the bot disabled (by another process) while the call
  // waited: what is queued now is not for this caller
  const revoked = botAccessError(await findBotByUserId(app.db, bot.user_id), bot.token_secret_hash);
  if (revoked) throw revoked;
  return pending(app, bot.id, opts.limit);
}

/**
 * Ends, with the error a new call would get, every waiting getUpdates whose token was
 * reissued or whose bot was disabled or blocked since it started: after another process
 * (the CLI) changed bots, so the change reaches parked calls, not only new ones.
 */
export async function recheckLongPolls(app: App): Promise<void> {
  for (const waiter of [...botRuntime(app).waiters.values()]) {
    const revoked = botAccessError(await findBotByUserId(app.db, waiter.botUserId), waiter.tokenHash);
    if (revoked) waiter.fail(revoked);
  }
}

export async function dropPendingUpdates(app: App, botId: number): Promise<void> {
  await app.db.deleteFrom("bot_updates").where("bot_id", "=", botId).execute();
}

/**
 * Ends every waiting getUpdates now (each answers what is queued, usually nothing) and every
 * person's wait for a button answer, so a stopping server does not wait for them to run out.
 */
export function endLongPolls(app: App): void {
  const rt = botRuntime(app);
  rt.closing = true;
  for (const waiter of [...rt.waiters.values()]) waiter.wake();
  for (const release of [...rt.holds]) release();
  releasePressWaiters(app);
}
