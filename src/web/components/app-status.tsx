import { useEffect, useState } from "preact/hooks";
import { keptForOffline, offline, reloadToNewVersion, waitingWorker } from "../lib/service-worker";
import { t } from "../lib/i18n";

/** "A new version is available" with a Reload button, while a new version's worker waits. */
export function UpdatePrompt() {
  if (!waitingWorker.value) return null;
  return (
    <div class="update-prompt" role="status">
      <span>{t("common.update.available")}</span>
      <button type="button" class="primary" onClick={reloadToNewVersion}>
        {t("common.update.reload")}
      </button>
    </div>
  );
}

/** A line under the header while the device has no network (what was on screen stays). */
export function OfflineBanner() {
  if (!offline.value) return null;
  return (
    <div class="connection-banner" role="status">
      {t("common.offline.banner")}
    </div>
  );
}

/**
 * The start screen when the server cannot be reached: says the app is offline and what this
 * device kept (the app itself; posts and messages are never stored on the device).
 */
export function OfflineStart({ problem }: { problem: string }) {
  const [kept, setKept] = useState<{ files: number } | null | undefined>(undefined);
  useEffect(() => {
    keptForOffline().then(setKept, () => setKept(null));
  }, []);
  return (
    <div class="card offline-start">
      <h1>{t("common.offline.title")}</h1>
      <p role="alert">{problem}</p>
      {kept === undefined ? null : kept ? (
        <p>{t("common.offline.kept", { count: kept.files })}</p>
      ) : (
        <p>{t("common.offline.nothingKept")}</p>
      )}
      <button type="button" onClick={() => location.reload()}>
        {t("common.tryAgain")}
      </button>
    </div>
  );
}
