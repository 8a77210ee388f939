import { useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber } from "../../lib/format";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { InstanceStatus, JobState, NodeReadiness, RecordedReadiness } from "../../lib/types";

const READINESS_LABEL: Record<string, () => string> & Record<NodeReadiness["status"], () => string> = {
  ready: () => t("admin.nodes.ready"),
  degraded: () => t("admin.nodes.degraded"),
  unavailable: () => t("admin.nodes.unavailable"),
};

/** A readiness in words: its state, then whatever is not "ok" (checks first, then engines). */
export function describeReadiness(r: RecordedReadiness): string {
  const wrong = [...Object.entries(r.checks), ...Object.entries(r.engines ?? {})].filter(([, v]) => v !== "ok");
  const label = READINESS_LABEL[r.status]?.() ?? r.status;
  return wrong.length ? `${label}: ${wrong.map(([k, v]) => `${k} ${v}`).join("; ")}` : label;
}

/** Every serving node the database has seen: its version, the readiness it last reported, when. */
export function NodesSection({ nodes }: { nodes: InstanceStatus["nodes"] }) {
  if (!nodes.length) return null;
  return (
    <section class="card" aria-labelledby="nodes-heading">
      <h2 id="nodes-heading">{t("admin.nodes.heading")}</h2>
      {/* focusable, so a keyboard can scroll the table sideways on a narrow screen */}
      <div class="table-scroll" role="region" aria-label={t("admin.nodes.heading")} tabIndex={0}>
        <table class="admin-table">
          <thead>
            <tr>
              <th scope="col">{t("admin.nodes.node")}</th>
              <th scope="col">{t("admin.nodes.version")}</th>
              <th scope="col">{t("admin.nodes.readiness")}</th>
              <th scope="col">{t("admin.nodes.lastSeen")}</th>
            </tr>
          </thead>
          <tbody>
            {nodes.map((n) => (
              <tr key={n.id}>
                <th scope="row">{n.id}</th>
                <td>{n.version}</td>
                <td>{n.readiness ? describeReadiness(n.readiness) : t("admin.nodes.notReported")}</td>
                <td>{formatDateTime(new Date(n.seenAt).toISOString())}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

const STATES: Array<[JobState, () => string]> = [
  ["queued", () => t("admin.jobs.queued")],
  ["running", () => t("admin.jobs.running")],
  ["done", () => t("admin.jobs.done")],
  ["dead", () => t("admin.jobs.dead")],
];

/**
 * The job queue (mail and other work done in the background): how many jobs are in each
 * state, and the dead ones (out of attempts), each to retry or drop.
 */
export function JobsSection({ jobs, onChanged }: { jobs: NonNullable<InstanceStatus["jobs"]>; onChanged: () => void }) {
  const [done, setDone] = useState<string | null>(null);
  const [pending, setPending] = useState<PendingAction | null>(null);
  const { busy, error, run } = useAction();
  const total = (state: JobState) => jobs.counts.filter((c) => c.state === state).reduce((n, c) => n + c.count, 0);

  const retry = (id: number) =>
    run(async () => {
      setDone(null);
      const r = await api.post<{ outcome: "retried" | "superseded" }>(`/admin/jobs/${id}/retry`);
      setDone(r.outcome === "retried" ? t("admin.jobs.retried", { id }) : t("admin.jobs.superseded", { id }));
      onChanged();
    })();

  const askDrop = (id: number, kind: string) => {
    setDone(null);
    setPending({
      title: t("admin.jobs.dropTitle", { id }),
      text: t("admin.jobs.dropText", { kind }),
      confirm: t("admin.jobs.drop"),
      danger: true,
      run: async () => {
        await api.delete(`/admin/jobs/${id}`);
        setDone(t("admin.jobs.dropped", { id }));
        onChanged();
      },
    });
  };

  return (
    <section class="card" aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">{t("admin.jobs.heading")}</h2>
      <dl class="figures">
        {STATES.map(([state, label]) => (
          <div key={state}>
            <dt>{label()}</dt>
            <dd>{formatNumber(total(state))}</dd>
          </div>
        ))}
      </dl>
      <Notice message={done} />
      <FormError message={error ? describeError(error) : null} />
      {jobs.dead.length > 0 && (
        <ul class="admin-list" aria-label={t("admin.jobs.deadList")}>
          {jobs.dead.map((j) => (
            <li key={j.id} class="admin-item" aria-labelledby={`job-${j.id}`}>
              <div class="admin-item-head">
                <h3 id={`job-${j.id}`}>{t("admin.jobs.job", { id: j.id, kind: j.kind })}</h3>
              </div>
              <p>
                {t("admin.jobs.attempts", {
                  count: j.attempts,
                  last: formatDateTime(new Date(j.updatedAt).toISOString()),
                })}
              </p>
              {j.lastError && <p class="muted">{j.lastError}</p>}
              <div class="actions" role="group" aria-label={t("admin.jobs.actions", { id: j.id })}>
                <button type="button" class="small" disabled={busy} onClick={() => retry(j.id)}>
                  {t("admin.jobs.retry")}
                </button>
                <button type="button" class="small danger" disabled={busy} onClick={() => askDrop(j.id, j.kind)}>
                  {t("admin.jobs.drop")}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </section>
  );
}
