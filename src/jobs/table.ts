import type { Generated, Selectable } from "kysely";

/** queued: waiting or due; running: claimed under a lease; done; dead: out of attempts, kept for an operator */
export type JobState = "queued" | "running" | "done" | "dead";

/** One side effect to carry out (see src/jobs/queue.ts). */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** the enqueuer's dedupe key: one queued job per kind and key */
  key: string | null;
  /** JSON; null once done */
  payload: string | null;
  state: JobState;
  /** attempts begun, counting the one under way */
  attempts: Generated<number>;
  run_at: number;
  lease_token: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export type JobRow = Selectable<JobsTable>;

export interface JobsTables {
  jobs: JobsTable;
}
