import { useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatBytes, formatDateTime, formatNumber } from "../../lib/format";
import type { InstanceStatus } from "../../lib/types";
import { JobsSection, NodesSection, describeReadiness } from "./status-queue";

function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const unit = (value: number, u: "day" | "hour" | "minute") =>
    new Intl.NumberFormat(undefined, { style: "unit", unit: u, unitDisplay: "long" }).format(value);
  return d ? `${unit(d, "day")} ${unit(h, "hour")}` : h ? `${unit(h, "hour")} ${unit(m, "minute")}` : unit(m, "minute");
}

const COUNT_LABELS: Record<string, string> = {
  accounts: "Accounts",
  posts: "Posts",
  messages: "Messages",
  bots: "Bots",
  queuedBotUpdates: "Bot updates waiting",
};

/** The figures of `socialctl status`, from the running server. */
export function Status() {
  const [status, setStatus] = useState<InstanceStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api.get<{ status: InstanceStatus }>("/admin/status").then(
      (r) => setStatus(r.status),
      (err) => setError(describeError(err)),
    );
  useEffect(() => void load(), []);
  if (error) return <FormError message={error} />;
  if (!status) return <Loading label="Loading the instance's status…" />;
  const s = status;
  const rows: Array<[string, string]> = [
    ["Version", s.version],
    ["Server", s.server.running ? `running, up ${formatUptime(s.server.uptimeSeconds ?? 0)}` : "not running"],
    ...(s.server.readiness
      ? [["Readiness of this node", describeReadiness(s.server.readiness)] as [string, string]]
      : []),
    ["Database", `${formatBytes(s.database.sizeBytes)} (write-ahead log ${formatBytes(s.database.walSizeBytes)})`],
    ["Files", `${formatNumber(s.files.count)} (${formatBytes(s.files.totalBytes)})`],
    ...Object.entries(s.counts)
      .filter(([, n]) => n !== null)
      .map(([k, n]): [string, string] => [COUNT_LABELS[k] ?? k, formatNumber(n!)]),
    [
      "Last backup",
      s.lastBackup ? `${formatDateTime(s.lastBackup.createdAt)}, ${formatBytes(s.lastBackup.sizeBytes)}` : "none yet",
    ],
    ["Schema", s.schema.version ?? "empty"],
    ["Pending migrations", s.schema.pending.length ? s.schema.pending.join(", ") : "none"],
    ["Data directory", s.dataDir],
  ];
  return (
    <>
      <section class="card" aria-labelledby="status-heading">
        <h2 id="status-heading">Instance status</h2>
        <dl class="figures">
          {rows.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        {s.schema.unknown.length > 0 && (
          <p role="alert">
            The database has migrations this version does not know ({s.schema.unknown.join(", ")}): it was made by a
            newer version.
          </p>
        )}
      </section>
      <NodesSection nodes={s.nodes} />
      {s.jobs && <JobsSection jobs={s.jobs} onChanged={() => void load()} />}
    </>
  );
}
