import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatBytes, formatDateTime, formatNumber } from "../../lib/format";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";
import type { BackupEntry, BackupsAnswer, RebuildReport } from "../../lib/types";

const downloadUrl = (name: string) => `/api/admin/maintenance/backups/${encodeURIComponent(name)}/download`;

function schedule(b: BackupsAnswer): string {
  if (b.everySeconds <= 0) return t("admin.backups.off");
  const hours = b.everySeconds / 3600;
  const every =
    hours >= 1
      ? t("admin.backups.hours", { value: formatNumber(hours) })
      : t("admin.backups.minutes", { value: formatNumber(b.everySeconds / 60) });
  return t("admin.backups.schedule", { every, keep: formatNumber(b.keep) });
}

/** Backups and derived media: what `socialctl backup create|list` and `media rebuild-derived` do. */
export function Maintenance() {
  const [backups, setBackups] = useState<BackupsAnswer | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [withoutDerived, setWithoutDerived] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const [rebuilt, setRebuilt] = useState<RebuildReport | null>(null);
  const create = useAction();
  const rebuild = useAction();
  const load = () =>
    api.get<BackupsAnswer>("/admin/maintenance/backups").then(
      (r) => (setBackups(r), setLoadError(null)),
      (err) => setLoadError(describeError(err)),
    );
  useEffect(() => void load(), []);

  return (
    <>
      <section class="card admin-section" aria-labelledby="backups-heading">
        <h2 id="backups-heading">{t("admin.backups.heading")}</h2>
        <p class="muted">
          {backups ? schedule(backups) : null} {t("admin.backups.privacy")} <code>socialctl backup restore FILE</code>.
        </p>
        <form
          class="form"
          onSubmit={create.run(async () => {
            setMade(null);
            const r = await api.post<{ backup: BackupEntry | null }>("/admin/maintenance/backups", { withoutDerived });
            setMade(
              r.backup
                ? t("admin.backups.written", { name: r.backup.name, size: formatBytes(r.backup.sizeBytes) })
                : t("admin.backups.writtenNameless"),
            );
            await load();
          })}
        >
          <label class="choice">
            <input
              type="checkbox"
              checked={withoutDerived}
              onChange={(e) => setWithoutDerived(e.currentTarget.checked)}
            />
            {t("admin.backups.withoutDerived")}
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={create.busy}>
              {create.busy ? t("admin.backups.making") : t("admin.backups.make")}
            </button>
          </div>
          <FormError message={create.error ? describeError(create.error) : null} />
        </form>
        <Notice message={made} />
        <FormError message={loadError} />
        {!backups && !loadError && <Loading label={t("admin.backups.loading")} />}
        {backups?.backups.length === 0 && <p class="empty">{t("admin.backups.empty")}</p>}
        {backups && backups.backups.length > 0 && (
          <div class="table-scroll" role="region" aria-label={t("admin.backups.region")} tabIndex={0}>
            <table class="admin-table one-line">
              <caption class="visually-hidden">{t("admin.backups.caption")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("admin.backups.made")}</th>
                  <th scope="col">{t("admin.backups.kind")}</th>
                  <th scope="col">{t("admin.backups.size")}</th>
                  <th scope="col">{t("admin.backups.files")}</th>
                  <th scope="col">{t("admin.backups.name")}</th>
                </tr>
              </thead>
              <tbody>
                {backups.backups.map((b) => (
                  <tr key={b.name}>
                    <td>{formatDateTime(b.createdAt)}</td>
                    <td>
                      {b.kind === "archive" ? t("admin.backups.archive") : t("admin.backups.preMigrate")}
                      {b.withoutDerived ? t("admin.backups.noThumbnails") : ""}
                      {b.error ? t("admin.backups.unreadable", { error: b.error }) : ""}
                    </td>
                    <td>{formatBytes(b.sizeBytes)}</td>
                    <td>{b.fileCount === null ? "" : formatNumber(b.fileCount)}</td>
                    <td>
                      <span class="backup-name">{b.name}</span>
                      {b.kind === "archive" && (
                        <>
                          {" "}
                          <a
                            href={downloadUrl(b.name)}
                            download={b.name}
                            aria-label={t("admin.backups.downloadName", { name: b.name })}
                          >
                            {t("admin.backups.download")}
                          </a>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="card admin-section" aria-labelledby="media-heading">
        <h2 id="media-heading">{t("admin.derived.heading")}</h2>
        <p class="muted">{t("admin.derived.hint")}</p>
        <div class="actions">
          <button
            type="button"
            disabled={rebuild.busy}
            onClick={rebuild.run(async () => {
              setRebuilt(null);
              setRebuilt(
                (await api.post<{ report: RebuildReport }>("/admin/maintenance/media/rebuild-derived")).report,
              );
            })}
          >
            {rebuild.busy ? t("admin.derived.rebuilding") : t("admin.derived.rebuild")}
          </button>
        </div>
        <FormError message={rebuild.error ? describeError(rebuild.error) : null} />
        <Notice
          message={
            rebuilt &&
            t("admin.derived.report", {
              rebuilt: formatNumber(rebuilt.rebuilt),
              present: formatNumber(rebuilt.present),
              failed: formatNumber(rebuilt.failed.length),
            })
          }
        />
        {rebuilt && rebuilt.failed.length > 0 && (
          <ul aria-label={t("admin.derived.failedList")}>
            {rebuilt.failed.map((f) => (
              <li key={f.file}>{t("admin.derived.failed", { file: f.file, upload: f.upload, reason: f.reason })}</li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
