import { defineService, type App } from "../../app";
import { randomToken } from "../../lib/ids";

/**
 * Open pre-checkout queries, in process: the person's Pay request waits on a promise that
 * answerPreCheckoutQuery resolves (no polling). A query is settled exactly once: by the
 * bot's answer or by the timeout, whichever comes first; a later answer is refused.
 */

export interface CheckoutAnswer {
  ok: boolean;
  errorMessage: string | null;
}

interface OpenQuery {
  botId: number;
  settled: boolean;
  resolve(answer: CheckoutAnswer | null): void;
}

interface CheckoutState {
  queries: Map<string, OpenQuery>;
  /** invoices with a Pay in flight: a second press of the same invoice is refused meanwhile */
  busyInvoices: Set<number>;
}

const checkout = defineService<CheckoutState>("payments:checkout", () => ({
  queries: new Map(),
  busyInvoices: new Set(),
}));

const state = (app: App): CheckoutState => app.services.get(checkout);

/** Marks an invoice as being paid; false when a Pay for it is already in flight. Synchronous on purpose. */
export function claimInvoice(app: App, invoiceId: number): boolean {
  const busy = state(app).busyInvoices;
  if (busy.has(invoiceId)) return false;
  busy.add(invoiceId);
  return true;
}

export function releaseInvoice(app: App, invoiceId: number): void {
  state(app).busyInvoices.delete(invoiceId);
}

/** Opens a query for BOT; its id goes into the pre_checkout_query update. */
export function openQuery(app: App, botId: number): { id: string; wait(ms: number): Promise<CheckoutAnswer | null> } {
  const id = randomToken(16);
  let resolve!: (a: CheckoutAnswer | null) => void;
  const answer = new Promise<CheckoutAnswer | null>((r) => (resolve = r));
  const queries = state(app).queries;
  const query: OpenQuery = { botId, settled: false, resolve };
  queries.set(id, query);
  const settle = (a: CheckoutAnswer | null) => {
    if (query.settled) return;
    query.settled = true;
    queries.delete(id);
    resolve(a);
  };
  query.resolve = settle;
  return {
    id,
    async wait(ms: number) {
      const timer = setTimeout(() => settle(null), ms);
      try {
        return await answer;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Settles an open query with no answer (the bot cannot receive it): its Pay ends as a timeout at once. */
export function cancelQuery(app: App, id: string): void {
  state(app).queries.get(id)?.resolve(null);
}

/**
 * The bot answers a query. False when the id is unknown, another bot's, already answered,
 * or timed out: the payment was cancelled and the answer comes too late.
 */
export function answerQuery(app: App, botId: number, id: string, answer: CheckoutAnswer): boolean {
  const query = state(app).queries.get(id);
  if (!query || query.botId !== botId || query.settled) return false;
  query.resolve(answer);
  return true;
}
