import { useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatBytes, formatDateTime, formatNumber, formatUnit } from "../../lib/format";
import { t } from "../../lib/i18n";
import type { InstanceStatus } from "../../lib/types";
import { JobsSection, NodesSection, describeReadiness } from "./status-queue";

function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d
    ? `${formatUnit(d, "day")} ${formatUnit(h, "hour")}`
    : h
      ? `${formatUnit(h, "hour")} ${formatUnit(m, "minute")}`
      : formatUnit(m, "minute");
}

const COUNT_LABELS: Record<string, () => string> = {
  accounts: () => t("admin.status.counts.accounts"),
  posts: () => t("admin.status.counts.posts"),
  messages: () => t("admin.status.counts.messages"),
  bots: () => t("admin.status.counts.bots"),
  queuedBotUpdates: () => t("admin.status.counts.queuedBotUpdates"),
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
  if (!status) return <Loading label={t("admin.status.loading")} />;
  const s = status;
  const rows: Array<[string, string]> = [
    [t("admin.status.version"), s.version],
    [
      t("admin.status.server"),
      s.server.running
        ? t("admin.status.running", { uptime: formatUptime(s.server.uptimeSeconds ?? 0) })
        : t("admin.status.notRunning"),
    ],
    ...(s.server.readiness
      ? [[t("admin.status.readiness"), describeReadiness(s.server.readiness)] as [string, string]]
      : []),
    [
      t("admin.status.database"),
      t("admin.status.databaseSize", {
        size: formatBytes(s.database.sizeBytes),
        wal: formatBytes(s.database.walSizeBytes),
      }),
    ],
    [
      t("admin.status.files"),
      t("admin.status.filesSize", { count: formatNumber(s.files.count), size: formatBytes(s.files.totalBytes) }),
    ],
    ...Object.entries(s.counts)
      .filter(([, n]) => n !== null)
      .map(([k, n]): [string, string] => [COUNT_LABELS[k]?.() ?? k, formatNumber(n!)]),
    [
      t("admin.status.lastBackup"),
      s.lastBackup
        ? `${formatDateTime(s.lastBackup.createdAt)}, ${formatBytes(s.lastBackup.sizeBytes)}`
        : t("admin.status.noBackup"),
    ],
    [t("admin.status.schema"), s.schema.version ?? t("admin.status.emptySchema")],
    [t("admin.status.pending"), s.schema.pending.length ? s.schema.pending.join(", ") : t("admin.status.nonePending")],
    [t("admin.status.dataDir"), s.dataDir],
  ];
  return (
    <>
      <section class="card" aria-labelledby="status-heading">
        <h2 id="status-heading">{t("admin.status.heading")}</h2>
        <dl class="figures">
          {rows.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        {s.schema.unknown.length > 0 && (
          <p role="alert">{t("admin.status.unknownMigrations", { names: s.schema.unknown.join(", ") })}</p>
        )}
      </section>
      <NodesSection nodes={s.nodes} />
      {s.jobs && <JobsSection jobs={s.jobs} onChanged={() => void load()} />}
    </>
  );
}
