import { sql } from "kysely";
import { defineService, type App } from "../app";
import { precompiled } from "../db/compiled";
import type { Scope } from "../db/transaction";

/*
 * The durable job queue: side effects that must not be lost (a mail, a push) are written as
 * rows of `jobs` in the transaction of the change that asks for them, so "acknowledged" means
 * "the job is on disk". Each serving node runs a worker (worker.ts) that claims due jobs under
 * a lease, runs their kind's handler and retries failures with backoff; a job out of attempts
 * stays as a dead letter until an operator retries or drops it (dead-letters.ts).
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What a handler is given besides the payload. */
export interface JobContext {
  readonly app: App;
  readonly jobId: number;
  /** 1 on the first attempt */
  readonly attempt: number;
  /** aborted when the attempt's time is up or its lease went to another node: stop, the job runs again */
  readonly signal: AbortSignal;
}

/**
 * Carries out jobs of one kind. `handle` settling is success; throwing retries the job after a
 * backoff, or dead-letters it at once for a PermanentJobError or on its last attempt. A job
 * may run more than once (a node killed mid-attempt, a lease lost): handlers must tolerate it.
 */
export interface JobHandler {
  readonly kind: string;
  handle(payload: JsonValue, ctx: JobContext): Promise<void>;
  /** attempts before the job is dead (default DEFAULT_MAX_ATTEMPTS) */
  readonly maxAttempts?: number;
  /** delay before the first retry; each further one doubles it, up to MAX_BACKOFF_MS, with jitter (default DEFAULT_BACKOFF_MS) */
  readonly backoffMs?: number;
  /** how long one attempt may take before it counts as failed (default DEFAULT_TIMEOUT_MS) */
  readonly timeoutMs?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 10;
export const DEFAULT_BACKOFF_MS = 5_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_BACKOFF_MS = 3600_000;

/** Thrown by a handler for a job that can never succeed (a malformed payload, a refused address): dead at once. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PermanentJobError";
  }
}

const handlersKey = defineService("jobs:handlers", () => new Map<string, JobHandler>());

/** Registers HANDLER for its kind (at the composition root); a node's worker claims only kinds it has handlers for. */
export function registerJobHandler(app: App, handler: JobHandler): void {
  const handlers = app.services.get(handlersKey);
  if (handlers.has(handler.kind)) throw new Error(`job handler ${handler.kind} is registered twice`);
  handlers.set(handler.kind, handler);
}

export const jobHandlers = (app: App): ReadonlyMap<string, JobHandler> => app.services.get(handlersKey);

/**
 * The delay before attempt ATTEMPTS + 1: BASE doubled per failed attempt, capped, then scaled
 * by a random factor in [0.5, 1] so jobs that failed together (SMTP down) do not retry in step.
 */
export function retryDelayMs(base: number, attempts: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(exponential * (0.5 + random() / 2));
}

/*
 * Workers of this process hear of a commit that enqueued a job at once; workers of other
 * processes find it by polling. A process-wide signal, not per App: it only says "look now",
 * so an App that has nothing due pays one cheap read.
 */
const enqueueListeners = new Set<() => void>();

/** LISTENER runs after each commit that enqueued a job in this process; returns the unsubscribe. */
export function onJobEnqueued(listener: () => void): () => void {
  enqueueListeners.add(listener);
  return () => enqueueListeners.delete(listener);
}

/**
 * Writes a job of KIND in SCOPE's transaction: it exists exactly when the change around it
 * commits. With `key`, a job of the same kind and key that is still queued (not yet running)
 * stands for this one, and is locked until SCOPE commits: a claim taking it meanwhile would run
 * it without what this transaction writes, and no job would come after it to see that.
 * `delayMs` holds a new job back that long. Returns the id of the job that carries this one.
 */
export async function enqueueJob(
  scope: Scope,
  kind: string,
  payload: JsonValue,
  options: { delayMs?: number; key?: string } = {},
): Promise<number> {
  const now = Date.now();
  const [row] = await insertJobQuery(scope.db, {
    kind,
    key: options.key ?? null,
    payload: JSON.stringify(payload),
    runAt: now + Math.max(0, options.delayMs ?? 0),
    now,
  });
  scope.afterCommit(() => {
    for (const listener of enqueueListeners) listener();
  });
  return row!.id;
}

// compiled once: a send to someone with a push subscription queues a job in its transaction
const insertJobQuery = precompiled(
  (db, p: { kind: string; key: string | null; payload: string; runAt: number; now: number }) =>
    db
      .insertInto("jobs")
      .values({
        kind: p.kind,
        key: p.key,
        payload: p.payload,
        state: "queued",
        run_at: p.runAt,
        lease_token: null,
        lease_until: null,
        last_error: null,
        created_at: p.now,
        updated_at: p.now,
      })
      // the partial unique index on (kind, key) of queued jobs: the queued job's row, updated,
      // stays locked until this transaction ends (PostgreSQL's claims skip locked rows)
      .onConflict((oc) =>
        oc
          .columns(["kind", "key"])
          // a literal: the index is found by its predicate, which a parameter does not match
          .where("state", "=", sql.lit("queued"))
          .where("key", "is not", null)
          .doUpdateSet({ updated_at: (eb) => eb.ref("excluded.updated_at") }),
      )
      .returning("id"),
);
