import { useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { InstanceStatus, JobState, NodeReadiness, RecordedReadiness } from "../../lib/types";

const READINESS_LABEL: Record<string, string> & Record<NodeReadiness["status"], string> = {
  ready: "Ready",
  degraded: "Degraded",
  unavailable: "Unavailable",
};

/** A readiness in words: its state, then whatever is not "ok" (checks first, then engines). */
export function describeReadiness(r: RecordedReadiness): string {
  const wrong = [...Object.entries(r.checks), ...Object.entries(r.engines ?? {})].filter(([, v]) => v !== "ok");
  const label = READINESS_LABEL[r.status] ?? r.status;
  return wrong.length ? `${label}: ${wrong.map(([k, v]) => `${k} ${v}`).join("; ")}` : label;
}

/** Every serving node the database has seen: its version, the readiness it last reported, when. */
export function NodesSection({ nodes }: { nodes: InstanceStatus["nodes"] }) {
  if (!nodes.length) return null;
  return (
    <section class="card" aria-labelledby="nodes-heading">
      <h2 id="nodes-heading">Nodes</h2>
      <table class="admin-table">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Version</th>
            <th scope="col">Readiness</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n.id}>
              <th scope="row">{n.id}</th>
              <td>{n.version}</td>
              <td>{n.readiness ? describeReadiness(n.readiness) : "not reported"}</td>
              <td>{formatDateTime(new Date(n.seenAt).toISOString())}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const STATES: Array<[JobState, string]> = [
  ["queued", "Queued"],
  ["running", "Running"],
  ["done", "Done (last day)"],
  ["dead", "Dead"],
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
      setDone(
        r.outcome === "retried"
          ? `Job ${id} queued again.`
          : `Job ${id} dropped: a queued job of the same kind stands for it.`,
      );
      onChanged();
    })();

  const askDrop = (id: number, kind: string) => {
    setDone(null);
    setPending({
      title: `Drop job ${id}`,
      text: `This ${kind} job will not be carried out. Nothing else changes.`,
      confirm: "Drop",
      danger: true,
      run: async () => {
        await api.delete(`/admin/jobs/${id}`);
        setDone(`Job ${id} dropped.`);
        onChanged();
      },
    });
  };

  return (
    <section class="card" aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Job queue</h2>
      <dl class="figures">
        {STATES.map(([state, label]) => (
          <div key={state}>
            <dt>{label}</dt>
            <dd>{formatNumber(total(state))}</dd>
          </div>
        ))}
      </dl>
      <Notice message={done} />
      <FormError message={error ? describeError(error) : null} />
      {jobs.dead.length > 0 && (
        <ul class="admin-list" aria-label="Dead jobs">
          {jobs.dead.map((j) => (
            <li key={j.id} class="admin-item" aria-labelledby={`job-${j.id}`}>
              <div class="admin-item-head">
                <h3 id={`job-${j.id}`}>
                  Job {j.id}: {j.kind}
                </h3>
              </div>
              <p>
                {j.attempts} attempt{j.attempts === 1 ? "" : "s"}, the last{" "}
                {formatDateTime(new Date(j.updatedAt).toISOString())}
              </p>
              {j.lastError && <p class="muted">{j.lastError}</p>}
              <div class="actions" role="group" aria-label={`Actions for job ${j.id}`}>
                <button type="button" class="small" disabled={busy} onClick={() => retry(j.id)}>
                  Retry
                </button>
                <button type="button" class="small danger" disabled={busy} onClick={() => askDrop(j.id, j.kind)}>
                  Drop
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
