import { defineService, type App } from "../../app";
import { leases } from "../../cluster/leases";
import { pubsub } from "../../cluster/pubsub";
import { randomToken } from "../../lib/ids";

/**
 * Open pre-checkout queries. The person's Pay request waits, on the node it came to, on a
 * promise; the bot may answer through any node. A query is settled exactly once, by the
 * bot's answer or by the timeout, whichever claims the query's lease (cluster/leases.ts)
 * first; a later answer is refused. A claimed answer travels to the waiting node on the
 * "payments:pre-checkout-answered" topic.
 */

export interface CheckoutAnswer {
  ok: boolean;
  errorMessage: string | null;
}

const ANSWERED = "payments:pre-checkout-answered";
/** How long a claimed answer may take to reach the waiting node before the wait ends without it. */
const ANSWER_IN_FLIGHT_MS = 5_000;
/** An invoice's Pay lease outlives the pre-checkout wait by this much: the charge that follows. */
const CHARGE_MARGIN_MS = 60_000;

interface OpenQuery {
  botId: number;
  settle(answer: CheckoutAnswer | null): void;
}

const checkout = defineService<Map<string, OpenQuery>>("payments:checkout", (app) => {
  const queries = new Map<string, OpenQuery>();
  pubsub(app).subscribe(ANSWERED, (message) => {
    const { id, answer } = JSON.parse(message) as { id: string; answer: CheckoutAnswer };
    queries.get(id)?.settle(answer);
  });
  return queries;
});

const queries = (app: App): Map<string, OpenQuery> => app.services.get(checkout);
const queryLease = (id: string) => `pre-checkout:${id}`;

/**
 * Marks what is being paid (KEY: an invoice, or one payer's payment of an invoice link) on
 * every node; null when a Pay for it is already in flight, else the claim to give to
 * releaseInvoice.
 */
export async function claimInvoice(app: App, key: string, waitMs: number): Promise<string | null> {
  const claim = `${pubsub(app).nodeId}:${randomToken(8)}`;
  return (await leases(app).acquire(key, claim, waitMs + CHARGE_MARGIN_MS)) ? claim : null;
}

export async function releaseInvoice(app: App, key: string, claim: string): Promise<void> {
  await leases(app).release(key, claim);
}

/**
 * Opens a query for BOT that the bot may answer within MS; its id goes into the
 * pre_checkout_query update. `answer` settles with the bot's answer, or null at the timeout.
 */
export async function openQuery(
  app: App,
  botId: number,
  ms: number,
): Promise<{ id: string; answer: Promise<CheckoutAnswer | null> }> {
  const id = randomToken(16);
  const owner = String(botId);
  await leases(app).acquire(queryLease(id), owner, ms + ANSWER_IN_FLIGHT_MS);
  const open = queries(app);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answer = new Promise<CheckoutAnswer | null>((resolve) => {
    let settled = false;
    open.set(id, {
      botId,
      settle(a) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        open.delete(id);
        resolve(a);
      },
    });
  });
  timer = setTimeout(() => void expire(app, id), ms);
  // past the bound the query opened longest ago ends now, as at its timeout: its payment is not made
  for (const [oldest, query] of open) {
    if (open.size <= app.config["limits.botAnswerWaits"]) break;
    void leases(app)
      .release(queryLease(oldest), String(query.botId))
      .catch(() => false);
    query.settle(null);
  }
  return { id, answer };
}

/**
 * Ends query ID without an answer if the timeout claims it first; when the bot's answer was
 * claimed meanwhile, it is on its way and the wait goes on a little longer for it.
 */
async function expire(app: App, id: string): Promise<void> {
  const query = queries(app).get(id);
  if (!query) return;
  const claimed = await leases(app)
    .release(queryLease(id), String(query.botId))
    .catch(() => true);
  if (claimed) query.settle(null);
  else setTimeout(() => query.settle(null), ANSWER_IN_FLIGHT_MS);
}

/** Settles an open query with no answer (the bot cannot receive it): its Pay ends as a timeout at once. */
export async function cancelQuery(app: App, id: string): Promise<void> {
  await expire(app, id);
}

/**
 * The bot answers a query. False when the id is unknown, another bot's, already answered,
 * or timed out: the payment was cancelled and the answer comes too late.
 */
export async function answerQuery(app: App, botId: number, id: string, answer: CheckoutAnswer): Promise<boolean> {
  if (!(await leases(app).release(queryLease(id), String(botId)))) return false;
  queries(app);
  await pubsub(app).publish(ANSWERED, JSON.stringify({ id, answer }));
  return true;
}
