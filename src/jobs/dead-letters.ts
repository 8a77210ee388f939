import type { Kysely } from "kysely";
import type { Db } from "../db";
import { isUniqueViolation } from "../db/errors";
import type { JobRow, JobState, JobsTables } from "./table";

/*
 * What an operator sees of the job queue and does with it (status, /metrics, the admin API,
 * `socialctl jobs`): how many jobs of each kind are in each state, the dead letters, and
 * retrying or dropping one. Payloads are not shown: a mail's holds a reset link or a code.
 */

/** A job as operators see it; times in ms. */
export interface JobSummary {
  id: number;
  kind: string;
  key: string | null;
  state: JobState;
  attempts: number;
  lastError: string | null;
  runAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface JobCount {
  kind: string;
  state: JobState;
  count: number;
}

/** The queue in status: counts per kind and state, and the newest dead letters. */
export interface JobsStatus {
  counts: JobCount[];
  dead: JobSummary[];
}

export const JOB_STATES: readonly JobState[] = ["queued", "running", "done", "dead"];

/** Dead letters listed in a status. */
const STATUS_DEAD_LIMIT = 20;

const summary = (r: JobRow): JobSummary => ({
  id: r.id,
  kind: r.kind,
  key: r.key,
  state: r.state,
  attempts: Number(r.attempts),
  lastError: r.last_error,
  runAt: Number(r.run_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** Jobs per kind and state (the states with none are left out). DB may be any database with the jobs table. */
export async function countJobs(db: Kysely<JobsTables>): Promise<JobCount[]> {
  const rows = await db
    .selectFrom("jobs")
    .select(["kind", "state", (eb) => eb.fn.countAll<number>().as("count")])
    .groupBy(["kind", "state"])
    .orderBy("kind")
    .orderBy("state")
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.count) }));
}

/** Jobs in STATE (all states when absent), of KIND when given, most recently changed first, at most LIMIT. */
export async function listJobs(
  db: Kysely<JobsTables>,
  filter: { state?: JobState; kind?: string; limit: number },
): Promise<JobSummary[]> {
  const rows = await db
    .selectFrom("jobs")
    .selectAll()
    .$if(filter.state !== undefined, (qb) => qb.where("state", "=", filter.state!))
    .$if(filter.kind !== undefined, (qb) => qb.where("kind", "=", filter.kind!))
    .orderBy("updated_at", "desc")
    .orderBy("id", "desc")
    .limit(filter.limit)
    .execute();
  return rows.map(summary);
}

/** The queue's part of a status. */
export async function jobsStatus(db: Kysely<JobsTables>): Promise<JobsStatus> {
  return { counts: await countJobs(db), dead: await listJobs(db, { state: "dead", limit: STATUS_DEAD_LIMIT }) };
}

/**
 * Queues dead job ID again with its attempts reset, due now. "superseded" when a queued job
 * of the same kind and key exists: that one stands for it, and the dead one is dropped.
 */
export async function retryDeadJob(db: Db, id: number, now: number): Promise<"retried" | "superseded" | "not-dead"> {
  try {
    const res = await db
      .updateTable("jobs")
      .set({ state: "queued", attempts: 0, run_at: now, updated_at: now })
      .where("id", "=", id)
      .where("state", "=", "dead")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0 ? "retried" : "not-dead";
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await dropDeadJob(db, id);
    return "superseded";
  }
}

/** Deletes dead job ID; false when there is no such dead job. */
export async function dropDeadJob(db: Db, id: number): Promise<boolean> {
  const res = await db.deleteFrom("jobs").where("id", "=", id).where("state", "=", "dead").executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** How long a done job stays listed before housekeeping deletes it. */
export const DONE_JOBS_KEPT_MS = 24 * 3600_000;

/** Deletes the jobs done before BEFORE; returns how many. */
export async function purgeDoneJobs(db: Db, before: number): Promise<number> {
  const res = await db
    .deleteFrom("jobs")
    .where("state", "=", "done")
    .where("updated_at", "<", before)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
