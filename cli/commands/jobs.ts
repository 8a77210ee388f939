import type { Command } from "commander";
import {
  JOB_STATES,
  countJobs,
  dropDeadJob,
  listJobs,
  retryDeadJob,
  type JobSummary,
} from "../../src/jobs/dead-letters";
import type { JobState } from "../../src/jobs/table";
import { parseLimit } from "../../src/lib/paging";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";

/** A job on one line: id, kind, state and attempts, when it last changed, why it last failed. */
const describeJob = (j: JobSummary) =>
  `${j.id}  ${j.kind}  ${j.state}, ${j.attempts} attempt${j.attempts === 1 ? "" : "s"}, ${new Date(j.updatedAt).toISOString()}` +
  (j.lastError ? `  ${j.lastError.replace(/\s+/g, " ")}` : "");

function jobId(raw: string): number {
  if (!/^[0-9]{1,15}$/.test(raw)) throw new CliError(`job id must be a number (as 'jobs list' shows it), not ${raw}`);
  return Number(raw);
}

/** `socialctl jobs list|retry|drop`: the durable job queue (mail and other side effects) and its dead letters. */
export function registerJobs(program: Command) {
  const jobs = program
    .command("jobs")
    .description("the job queue: mail and other side effects carried out in the background, and its dead jobs");

  jobs
    .command("list")
    .description("jobs most recently changed first, with counts per kind and state (payloads are not shown)")
    .option("--state <state>", `${JOB_STATES.join(", ")} or all`, "dead")
    .option("--kind <kind>", "only jobs of this kind (mail, …)")
    .option("--limit <n>", "jobs listed, 1 to 100", "20")
    .action(async (f: { state: string; kind?: string; limit: string }, cmd: Command) => {
      const opts = globals(cmd);
      if (f.state !== "all" && !(JOB_STATES as readonly string[]).includes(f.state))
        throw new CliError(`--state must be one of ${JOB_STATES.join(", ")} or all`);
      const state = f.state === "all" ? undefined : (f.state as JobState);
      const limit = parseLimit(f.limit);
      const { counts, list } = await withApp(opts, async (app) => ({
        counts: await countJobs(app.db),
        list: await listJobs(app.db, { state, kind: f.kind, limit }),
      }));
      emit(opts, { counts, jobs: list }, () => {
        const summary = counts.length
          ? counts.map((c) => `${c.kind} ${c.state} ${c.count}`).join(", ")
          : "the queue is empty";
        const shown = list.length ? list.map(describeJob).join("\n") : state ? `No ${state} jobs.` : "No jobs.";
        return `${summary}\n${shown}`;
      });
    });

  jobs
    .command("retry <id>")
    .description("queue a dead job again with fresh attempts; a running server carries it out within a second or so")
    .action(async (raw: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const id = jobId(raw);
      const outcome = await withApp(opts, (app) => retryDeadJob(app.db, id, Date.now()));
      if (outcome === "not-dead") throw new CliError(`no dead job ${id}: see 'jobs list'`);
      emit(
        opts,
        { id, outcome },
        outcome === "retried"
          ? `Job ${id} queued again.`
          : `Job ${id} dropped: a queued job of the same kind and key stands for it.`,
      );
    });

  jobs
    .command("drop <id>")
    .description("delete a dead job: it will not be carried out")
    .action(async (raw: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const id = jobId(raw);
      if (!(await withApp(opts, (app) => dropDeadJob(app.db, id))))
        throw new CliError(`no dead job ${id}: see 'jobs list'`);
      emit(opts, { id, dropped: true }, `Job ${id} dropped.`);
    });
}
