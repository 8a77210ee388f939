import { Elysia, t } from "elysia";
import { doc } from "../docs";
import { Job, JobCount, JobState } from "../schemas";
import type { App } from "../../app";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { parseLimit } from "../../lib/paging";
import { countJobs, dropDeadJob, listJobs, retryDeadJob, type JobSummary } from "../../jobs/dead-letters";
import { adminContext, logged } from "./guard";

const ListQuery = t.Object({
  state: t.Optional(JobState),
  kind: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  limit: t.Optional(t.String({ maxLength: 10, description: "jobs listed, 1 to 100 (default 20)" })),
});
const IdParams = t.Object({ id: t.String({ pattern: "^[0-9]{1,15}$" }) });

const serializeJob = (j: JobSummary): typeof Job.static => ({
  ...j,
  runAt: toIso(j.runAt),
  createdAt: toIso(j.createdAt),
  updatedAt: toIso(j.updatedAt),
});

const jobTarget = (id: string) => ({ type: "job" as const, id, label: `job ${id}` });
const noDeadJob = () => notFound("No dead job with this id");

/**
 * /api/admin/jobs: the job queue (mail and other side effects carried out in the background):
 * counts per kind and state, the jobs themselves (payloads are never shown: a mail's holds a
 * reset link), and an operator's retry or drop of a dead one. As `socialctl jobs` does.
 */
export function adminJobRoutes(app: App) {
  return new Elysia({ name: "admin-jobs" })
    .use(adminContext(app))
    .get(
      "/",
      async ({ query }) => {
        const jobs = await listJobs(app.db, { state: query.state, kind: query.kind, limit: parseLimit(query.limit) });
        return ok({ counts: await countJobs(app.db), jobs: jobs.map(serializeJob) });
      },
      {
        admin: true,
        query: ListQuery,
        detail: doc(
          "Admin: jobs per kind and state, and the jobs most recently changed (?state=dead: the dead letters)",
          {
            data: t.Object({ counts: t.Array(JobCount), jobs: t.Array(Job) }),
          },
        ),
      },
    )
    .post(
      "/:id/retry",
      async ({ admin, params }) => {
        const outcome = await logged(app, admin, [{ action: "job.retry", target: jobTarget(params.id) }], async () => {
          const done = await retryDeadJob(app.db, Number(params.id), Date.now());
          if (done === "not-dead") throw noDeadJob();
          return done;
        });
        return ok({ outcome });
      },
      {
        admin: true,
        params: IdParams,
        detail: doc(
          "Admin: queue a dead job again with fresh attempts (superseded: a queued job of the same kind and key stands for it, and the dead one is dropped)",
          {
            data: t.Object({ outcome: t.Union([t.Literal("retried"), t.Literal("superseded")]) }),
            errors: ["NOT_FOUND"],
          },
        ),
      },
    )
    .delete(
      "/:id",
      async ({ admin, params }) => {
        await logged(app, admin, [{ action: "job.drop", target: jobTarget(params.id) }], async () => {
          if (!(await dropDeadJob(app.db, Number(params.id)))) throw noDeadJob();
        });
        return ok({ dropped: true });
      },
      {
        admin: true,
        params: IdParams,
        detail: doc("Admin: delete a dead job: it will not be carried out", {
          data: t.Object({ dropped: t.Boolean() }),
          errors: ["NOT_FOUND"],
        }),
      },
    );
}
