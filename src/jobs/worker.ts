import { sql } from "kysely";
import type { App } from "../app";
import type { Db } from "../db";
import { precompiled, ShapedQuery } from "../db/compiled";
import { engineOf } from "../db/engine";
import { isUniqueViolation } from "../db/errors";
import { randomToken } from "../lib/ids";
import { WakeTimer } from "../lib/wake-timer";
import {
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_TIMEOUT_MS,
  PermanentJobError,
  jobHandlers,
  onJobEnqueued,
  retryDelayMs,
  type JobHandler,
  type JsonValue,
} from "./queue";
import type { JobRow } from "./table";

/** How long a claim holds a job; renewed while the attempt runs. A killed node's job runs again after it. */
export const JOB_LEASE_MS = 30_000;
const LEASE_RENEW_MS = 10_000;
/** Jobs one node runs at once. */
const CONCURRENCY = 4;
/** When nothing is due, look again this often (jobs enqueued by other nodes, leases that ran out). */
const IDLE_POLL_MS = 1_000;
/**
 * When a job was due at the claim and the claim left it (on PostgreSQL: locked by a transaction
 * that joined it, or by another node's claim), look again after this: its commit wakes this
 * node's worker at once (onJobEnqueued); other nodes need not ask in a loop meanwhile.
 */
const LOCKED_POLL_MS = 50;
/** How long shutdown waits for attempts under way before closing the database under them. */
const DRAIN_MS = 10_000;
const MAX_ERROR_CHARS = 2_000;

/*
 * Job times are the wall clock (Date.now), not app.clock: a lease or a backoff is real time,
 * and tests that move the App's clock for tokens must not make leases lapse.
 */

/**
 * Claims up to LIMIT due jobs of KINDS for this node: running ones whose lease ran out (their
 * node died or stalled), then queued ones whose time has come, oldest first. Each claim counts
 * an attempt and carries a fresh lease token; only its holder may finish the job. Each read
 * walks jobs_by_state in order and stops at LIMIT, so a long backlog (a push service down for
 * an hour) costs a claim no more than an empty queue. PostgreSQL: FOR UPDATE SKIP LOCKED, so
 * nodes claiming at once never take the same job. SQLite: one process writes and each UPDATE
 * is one statement.
 */
export async function claimJobs(db: Db, kinds: string[], limit: number, now: number): Promise<JobRow[]> {
  if (!kinds.length || limit < 1) return [];
  const values: ClaimValues = {
    token: randomToken(12),
    leaseUntil: now + JOB_LEASE_MS,
    now,
    most: limit,
    ...kindValues(kinds),
  };
  const taken = await claimQuery.execute(db, { kinds: kinds.length, expired: true }, values);
  if (taken.length === limit) return taken;
  const due = await claimQuery.execute(
    db,
    { kinds: kinds.length, expired: false },
    { ...values, most: limit - taken.length },
  );
  return taken.concat(due);
}

/** KINDS as the values of a query compiled once per number of kinds: k0, k1, … */
const kindValues = (kinds: string[]): Record<`k${number}`, string> =>
  Object.fromEntries(kinds.map((kind, i) => [`k${i}`, kind]));

type ClaimValues = { token: string; leaseUntil: number; now: number; most: number; [kind: `k${number}`]: string };

/**
 * One claim, compiled once per number of kinds and per which jobs it takes: EXPIRED, running
 * jobs whose lease ran out; else queued jobs that are due, oldest first.
 */
const claimQuery = new ShapedQuery(
  (db: Db, v: ClaimValues, shape: { kinds: number; expired: boolean }) => {
    const ofKinds = db
      .selectFrom("jobs")
      .select("id")
      .where(
        "kind",
        "in",
        Array.from({ length: shape.kinds }, (_, i) => v[`k${i}`]),
      );
    const due = shape.expired
      ? ofKinds.where("state", "=", "running").where("lease_until", "<", v.now)
      : ofKinds.where("state", "=", "queued").where("run_at", "<=", v.now).orderBy("run_at");
    return db
      .updateTable("jobs")
      .set({
        state: "running",
        attempts: sql`attempts + 1`,
        lease_token: v.token,
        lease_until: v.leaseUntil,
        updated_at: v.now,
      })
      .where(
        "id",
        "in",
        due.limit(v.most).$if(engineOf(db) === "postgres", (qb) => qb.forUpdate().skipLocked()),
      )
      .returningAll();
  },
  (shape) => `${shape.kinds}:${shape.expired}`,
);

/** When the next job of KINDS falls due (a queued job's time, a running job's lease end), or null. */
async function nextDueAt(db: Db, kinds: string[]): Promise<number | null> {
  const [row] = await nextDueQuery.execute(db, kinds.length, kindValues(kinds));
  const times = [row?.queued, row?.leased].filter((t) => t !== null && t !== undefined).map(Number);
  return times.length ? Math.min(...times) : null;
}

const nextDueQuery = new ShapedQuery(
  (db: Db, v: Record<`k${number}`, string>, count: number) => {
    const kinds = Array.from({ length: count }, (_, i) => v[`k${i}`]);
    return db.selectNoFrom((eb) => [
      eb
        .selectFrom("jobs")
        .select("run_at")
        .where("state", "=", "queued")
        .where("kind", "in", kinds)
        .orderBy("run_at")
        .limit(1)
        .as("queued"),
      eb
        .selectFrom("jobs")
        .select((e) => e.fn.min("lease_until").as("lease_until"))
        .where("state", "=", "running")
        .where("kind", "in", kinds)
        .as("leased"),
    ]);
  },
  (count) => String(count),
);

/** Extends JOB's lease; false when the claim is no longer this holder's (another node took it over). */
async function renewLease(db: Db, job: JobRow): Promise<boolean> {
  const now = Date.now();
  const res = await db
    .updateTable("jobs")
    .set({ lease_until: now + JOB_LEASE_MS, updated_at: now })
    .where("id", "=", job.id)
    .where("lease_token", "=", job.lease_token)
    .where("state", "=", "running")
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Marks JOB done, if this claim still holds it; its payload goes (a mail's link need not stay). */
async function finishJob(db: Db, job: JobRow): Promise<void> {
  await finishJobQuery(db, { id: job.id, token: job.lease_token, now: Date.now() });
}

const finishJobQuery = precompiled((db, p: { id: number; token: string | null; now: number }) =>
  db
    .updateTable("jobs")
    .set({ state: "done", payload: null, lease_token: null, lease_until: null, last_error: null, updated_at: p.now })
    .where("id", "=", p.id)
    .where("lease_token", "=", p.token),
);

/** Puts JOB back for another attempt at RUNAT, or dead-letters it when DEAD. */
async function failJob(db: Db, job: JobRow, error: string, next: { dead: true } | { dead: false; runAt: number }) {
  const now = Date.now();
  const claimed = () => db.updateTable("jobs").where("id", "=", job.id).where("lease_token", "=", job.lease_token);
  const failed = { lease_token: null, lease_until: null, last_error: error.slice(0, MAX_ERROR_CHARS), updated_at: now };
  if (next.dead) {
    await claimed()
      .set({ ...failed, state: "dead" })
      .execute();
    return;
  }
  try {
    await claimed()
      .set({ ...failed, state: "queued", run_at: next.runAt })
      .execute();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // a newer job of the same kind and key was queued meanwhile: it stands for this one
    await claimed()
      .set({
        ...failed,
        state: "done",
        payload: null,
        last_error: `superseded after: ${error}`.slice(0, MAX_ERROR_CHARS),
      })
      .execute();
  }
}

const describeError = (err: unknown): string => (err instanceof Error ? err.message || err.name : String(err));

/**
 * The node's worker: claims due jobs of the kinds it has handlers for, at most CONCURRENCY at
 * a time, runs each under a renewed lease, and records the outcome. Started by serving
 * processes only (wiring.ts startWorkers); stops with the App, waiting a bounded time for
 * attempts under way.
 */
export function startJobWorker(app: App): void {
  const running = new Map<number, Promise<void>>();
  let polling = false;
  let again = false;
  const wake = new WakeTimer(() => void poll());
  const schedule = (ms: number) => wake.at(ms);

  async function poll(): Promise<void> {
    // one poll at a time; a wake during one makes it look again when done
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    try {
      const handlers = jobHandlers(app);
      const kinds = [...handlers.keys()];
      const now = Date.now();
      const jobs = await claimJobs(app.db, kinds, CONCURRENCY - running.size, now);
      for (const job of jobs) {
        const handler = handlers.get(job.kind)!;
        const attempt = runAttempt(handler, job).finally(() => {
          running.delete(job.id);
          schedule(0);
        });
        running.set(job.id, attempt);
      }
      if (running.size < CONCURRENCY) {
        const dueAt = kinds.length ? await nextDueAt(app.db, kinds) : null;
        const wait = dueAt === null ? IDLE_POLL_MS : dueAt <= now ? LOCKED_POLL_MS : dueAt - Date.now() + 1;
        schedule(Math.min(IDLE_POLL_MS, wait));
      }
    } catch (err) {
      if (!wake.stopped) app.log.error("job poll failed", { error: describeError(err) });
      schedule(IDLE_POLL_MS);
    } finally {
      polling = false;
      if (again) {
        again = false;
        schedule(0);
      }
    }
  }

  async function runAttempt(handler: JobHandler, job: JobRow): Promise<void> {
    const abort = new AbortController();
    const timeoutMs = handler.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const renewal = setInterval(() => {
      renewLease(app.db, job)
        .then((held) => held || abort.abort(new Error("the job's lease went to another node")))
        .catch(() => undefined);
    }, LEASE_RENEW_MS);
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      const payload = JSON.parse(job.payload ?? "null") as JsonValue;
      await Promise.race([
        handler.handle(payload, { app, jobId: job.id, attempt: job.attempts, signal: abort.signal }),
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => {
            const err = new Error(`the attempt took longer than ${timeoutMs} ms`);
            abort.abort(err);
            reject(err);
          }, timeoutMs);
        }),
        new Promise<never>((_, reject) => abort.signal.addEventListener("abort", () => reject(abort.signal.reason))),
      ]);
      clearInterval(renewal);
      await finishJob(app.db, job);
      app.log.debug("job done", { job: job.id, kind: job.kind, attempt: job.attempts });
    } catch (err) {
      clearInterval(renewal);
      const error = describeError(err);
      const maxAttempts = handler.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      const dead = err instanceof PermanentJobError || job.attempts >= maxAttempts;
      const fields = { job: job.id, kind: job.kind, attempt: job.attempts, error };
      if (dead) app.log.error("job dead: out of attempts or refused for good", fields);
      else app.log.warn("job attempt failed; it will be retried", fields);
      try {
        await failJob(
          app.db,
          job,
          error,
          dead
            ? { dead: true }
            : { dead: false, runAt: Date.now() + retryDelayMs(handler.backoffMs ?? DEFAULT_BACKOFF_MS, job.attempts) },
        );
      } catch (recordErr) {
        // the lease runs out and another claim retries the job
        if (!wake.stopped) app.log.error("job outcome not recorded", { job: job.id, error: describeError(recordErr) });
      }
    } finally {
      clearInterval(renewal);
      clearTimeout(timeout);
    }
  }

  const unsubscribe = onJobEnqueued(() => schedule(0));
  schedule(0);
  app.onClose(async () => {
    wake.stop();
    unsubscribe();
    // attempts under way record their outcome before the database closes, for a bounded time
    await Promise.race([Promise.allSettled(running.values()), Bun.sleep(DRAIN_MS)]);
  });
}
