import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatBytes, formatDateTime, formatNumber } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import type { BackupEntry, BackupsAnswer, RebuildReport } from "../../lib/types";

const downloadUrl = (name: string) => `/api/admin/maintenance/backups/${encodeURIComponent(name)}/download`;

function schedule(b: BackupsAnswer): string {
  if (b.everySeconds <= 0) return "Automatic backups are off (config backup.every).";
  const hours = b.everySeconds / 3600;
  const every = hours >= 1 ? `${formatNumber(hours)} h` : `${formatNumber(b.everySeconds / 60)} min`;
  return `An automatic backup is made every ${every}; the newest ${formatNumber(b.keep)} are kept.`;
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
        <h2 id="backups-heading">Backups</h2>
        <p class="muted">
          {backups ? schedule(backups) : null} A backup holds every account's data and the instance secret: keep
          downloaded archives private. Restoring replaces the data of a stopped server, so it stays on the server's
          command line: <code>socialctl backup restore FILE</code>.
        </p>
        <form
          class="form"
          onSubmit={create.run(async () => {
            setMade(null);
            const r = await api.post<{ backup: BackupEntry | null }>("/admin/maintenance/backups", { withoutDerived });
            setMade(
              r.backup ? `Backup ${r.backup.name} is written (${formatBytes(r.backup.sizeBytes)}).` : "Backup written.",
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
            Leave out thumbnails and video posters (smaller; rebuilt after a restore)
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={create.busy}>
              {create.busy ? "Making the backup…" : "Make a backup now"}
            </button>
          </div>
          <FormError message={create.error ? describeError(create.error) : null} />
        </form>
        <Notice message={made} />
        <FormError message={loadError} />
        {!backups && !loadError && <Loading label="Loading backups…" />}
        {backups?.backups.length === 0 && <p class="empty">No backups yet.</p>}
        {backups && backups.backups.length > 0 && (
          <div class="table-scroll" role="region" aria-label="Backups on the server" tabIndex={0}>
            <table class="admin-table one-line">
              <caption class="visually-hidden">Backups in the data folder, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Made</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Size</th>
                  <th scope="col">Files</th>
                  <th scope="col">Name</th>
                </tr>
              </thead>
              <tbody>
                {backups.backups.map((b) => (
                  <tr key={b.name}>
                    <td>{formatDateTime(b.createdAt)}</td>
                    <td>
                      {b.kind === "archive" ? "backup" : "before an upgrade"}
                      {b.withoutDerived ? ", without thumbnails" : ""}
                      {b.error ? ` (unreadable: ${b.error})` : ""}
                    </td>
                    <td>{formatBytes(b.sizeBytes)}</td>
                    <td>{b.fileCount === null ? "" : formatNumber(b.fileCount)}</td>
                    <td>
                      <span class="backup-name">{b.name}</span>
                      {b.kind === "archive" && (
                        <>
                          {" "}
                          <a href={downloadUrl(b.name)} download={b.name} aria-label={`Download ${b.name}`}>
                            Download
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
        <h2 id="media-heading">Thumbnails and posters</h2>
        <p class="muted">
          Makes missing thumbnails and video posters again from the original uploads, as after a restore of a backup
          made without them.
        </p>
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
            {rebuild.busy ? "Rebuilding…" : "Rebuild thumbnails and posters"}
          </button>
        </div>
        <FormError message={rebuild.error ? describeError(rebuild.error) : null} />
        <Notice
          message={
            rebuilt &&
            `Rebuilt ${formatNumber(rebuilt.rebuilt)}, already present ${formatNumber(rebuilt.present)}, failed ${formatNumber(rebuilt.failed.length)}.`
          }
        />
        {rebuilt && rebuilt.failed.length > 0 && (
          <ul aria-label="Files that could not be rebuilt">
            {rebuilt.failed.map((f) => (
              <li key={f.file}>
                {f.file} (upload {f.upload}): {f.reason}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
