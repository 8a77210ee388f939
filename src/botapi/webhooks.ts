import type { App } from "../app";
import { leases } from "../cluster/leases";
import { pubsub } from "../cluster/pubsub";
import { findBotByUserId, noteWebhookError } from "../domain/bots/service";
import { onUpdateEnqueued, toUpdate } from "../domain/bots/updates";
import { deferUpdate, oldestPendingUpdate, removeDeliveredUpdate, webhookBacklog } from "../domain/bots/webhook-queue";
import { callBotMethod } from "./dispatcher";
import { fetchPublic, outboundUrlProblem, readLimited, urlShapeProblem } from "../http/outbound";
import { Params } from "./params";
import { omitAbsent } from "./serializers";
import { metricsFor } from "../ops/metrics";
import { botLogOf, describeUpdate, loggable } from "../domain/bots/log";
import { WakeTimer } from "../lib/wake-timer";

const MAX_BACKOFF_MS = 60_000;
const FIRST_BACKOFF_MS = 500;
const DELIVERY_TIMEOUT_MS = 15_000;
/**
 * One node delivers a bot's updates at a time: it holds this lease while it delivers, renewed
 * every LEASE_RENEW_MS (before each update and during a slow one). A node that dies
 * mid-delivery loses it within this long and another node's scan takes over: the update it was
 * sending is still queued, so it goes again under the same update_id (at least once, in order).
 */
const DELIVERY_LEASE_MS = 10_000;
const LEASE_RENEW_MS = 3_000;
/** When idle, look again this often anyway (clock moved by tests, a missed kick). */
const IDLE_RECHECK_MS = 5_000;

/** A webhook reply larger than this is not read (it cannot be a sensible method call). */
const MAX_REPLY_BYTES = 1024 * 1024;

export const backoffMs = (attempts: number): number =>
  Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));

/**
 * Delivers queued updates to webhooks: one update at a time per bot (order kept), retried
 * with exponential backoff on network errors and non-2xx answers. A `method` in a 2xx JSON
 * answer is executed as a Bot API call (webhook reply). Started by serving processes only.
 */
export function startWebhookWorker(app: App): void {
  /** bots being delivered now, at most limits.webhookDeliveries */
  const busy = new Set<number>();
  /** a scan left due bots for want of room: the next delivery to end looks again */
  let waitingForRoom = false;
  /** scans again in MS unless a scan is already due sooner (racing scans never push one back) */
  const wake = new WakeTimer(() => void scan());
  const schedule = (ms: number) => wake.at(ms);

  async function scan(): Promise<void> {
    const now = app.clock.now();
    try {
      // per bot, the oldest pending update decides: order is kept, so it goes first
      let nextAt = now + IDLE_RECHECK_MS;
      waitingForRoom = false;
      for (const row of await webhookBacklog(app.db)) {
        if (busy.has(row.botId)) continue;
        if (Number(row.dueAt) > now) nextAt = Math.min(nextAt, Number(row.dueAt));
        else if (busy.size < app.config["limits.webhookDeliveries"]) void deliverAll(row.botId, row.botUserId);
        // its updates stay queued in the database until a delivery ends and leaves room
        else waitingForRoom = true;
      }
      schedule(nextAt - now);
    } catch (err) {
      if (!wake.stopped) app.log.error("webhook scan failed", { error: String(err) });
      schedule(IDLE_RECHECK_MS);
    }
  }

  async function deliverAll(botId: number, botUserId: number): Promise<void> {
    busy.add(botId);
    // only a delivery attempt calls for an immediate rescan; otherwise the scan's own timer stands
    let attempted = false;
    const lease = `webhook:${botId}`;
    const node = pubsub(app).nodeId;
    let held = false;
    // a renewal that fails (another node holds the lease: this process stalled past it, or the
    // lease store is away) ends this delivery at once, its POST aborted and nothing recorded,
    // so two nodes never go on sending one bot's updates side by side
    const lost = new AbortController();
    const renewal = setInterval(() => {
      leases(app)
        .acquire(lease, node, DELIVERY_LEASE_MS)
        .then(
          (ok) => ok || lost.abort(),
          () => lost.abort(),
        );
    }, LEASE_RENEW_MS);
    try {
      for (let i = 0; i < 1000 && !wake.stopped && !lost.signal.aborted; i++) {
        // another node is delivering this bot's updates: its scan, not this one, carries on
        if (!(held = await leases(app).acquire(lease, node, DELIVERY_LEASE_MS))) return;
        const found = await findBotByUserId(app.db, botUserId);
        if (!found?.bot.webhook_url || found.bot.disabled_at || found.bot.blocked_at) return;
        const row = await oldestPendingUpdate(app.db, botId);
        if (!row || row.next_attempt_at > app.clock.now()) return;
        const update = omitAbsent(toUpdate(row)) as Record<string, unknown>;
        const body = JSON.stringify(update);
        attempted = true;
        const started = performance.now();
        const failure = await post(found.bot.webhook_url, found.bot.webhook_secret, body, found, lost.signal);
        // the lease went to another node mid-POST: that node delivers this update (again); the
        // bot's server may have got it from both, always under this one update_id
        if (failure !== null && lost.signal.aborted) return;
        metricsFor(app).webhookDeliveries.inc({ result: failure === null ? "ok" : "failed" });
        botLogOf(app).add(botId, {
          kind: "update",
          method: "webhook",
          ok: failure === null,
          update: describeUpdate(update),
          result: loggable(update),
          ...(failure === null ? {} : { error: { code: 0, description: failure } }),
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
        if (failure === null) {
          // acknowledged (2xx): removed even if the lease was lost meanwhile, so never sent again
          await removeDeliveredUpdate(app.db, row.id);
          continue;
        }
        const attempts = row.attempts + 1;
        await deferUpdate(app.db, row.id, attempts, app.clock.now() + backoffMs(attempts));
        await noteWebhookError(app, botId, failure);
        return;
      }
    } catch (err) {
      if (!wake.stopped) app.log.error("webhook delivery failed", { botId, error: String(err) });
    } finally {
      clearInterval(renewal);
      if (held)
        await leases(app)
          .release(lease, node)
          .catch(() => false);
      busy.delete(botId);
      if (!wake.stopped && (attempted || waitingForRoom)) schedule(0);
    }
  }

  /**
   * POSTs one update; null on success, else the error for getWebhookInfo. A refused address, a
   * closed port and a timeout all read "Connection failed" there: the owner sets the URL, and
   * telling them apart would map the instance's network.
   */
  async function post(
    url: string,
    secret: string | null,
    body: string,
    found: NonNullable<Awaited<ReturnType<typeof findBotByUserId>>>,
    leaseLost: AbortSignal,
  ): Promise<string | null> {
    const shape = urlShapeProblem(app, url);
    if (shape) return `Bad webhook: ${shape}`;
    const logCause = (cause: string) => app.log.info("webhook not delivered", { botId: found.bot.id, cause });
    const problem = outboundUrlProblem(app, url);
    if (problem) {
      logCause(problem);
      return "Connection failed";
    }
    let res: Response;
    try {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (secret) headers["X-Telegram-Bot-Api-Secret-Token"] = secret;
      res = await fetchPublic(
        app,
        new URL(url),
        {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.any([leaseLost, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
        },
        logCause,
      );
    } catch {
      return "Connection failed";
    }
    const reply = await readLimited(res, MAX_REPLY_BYTES).catch(() => null);
    const text = reply ? new TextDecoder().decode(reply) : "";
    if (res.status < 200 || res.status > 299)
      return `Wrong response from the webhook: ${res.status} ${res.statusText}`.trim();
    await runWebhookReply(text, found);
    return null;
  }

  /** Telegraf's webhookReply: a 2xx JSON body with `method` is a Bot API call. */
  async function runWebhookReply(
    text: string,
    found: NonNullable<Awaited<ReturnType<typeof findBotByUserId>>>,
  ): Promise<void> {
    if (!text.trim().startsWith("{")) return;
    let reply: Record<string, unknown>;
    try {
      reply = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof reply.method !== "string") return;
    try {
      await callBotMethod(app, found, reply.method, new Params(reply));
    } catch (err) {
      app.log.warn("webhook reply method failed", { method: reply.method, error: (err as Error).message });
    }
  }

  const unsubscribe = onUpdateEnqueued(app, () => schedule(0));
  schedule(0);
  app.onClose(() => {
    wake.stop();
    unsubscribe();
  });
}
