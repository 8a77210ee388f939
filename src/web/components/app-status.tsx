import { useEffect, useState } from "preact/hooks";
import { keptForOffline, offline, reloadToNewVersion, waitingWorker } from "../lib/service-worker";

/** "A new version is available" with a Reload button, while a new version's worker waits. */
export function UpdatePrompt() {
  if (!waitingWorker.value) return null;
  return (
    <div class="update-prompt" role="status">
      <span>A new version is available.</span>
      <button type="button" class="primary" onClick={reloadToNewVersion}>
        Reload
      </button>
    </div>
  );
}

/** A line under the header while the device has no network (what was on screen stays). */
export function OfflineBanner() {
  if (!offline.value) return null;
  return (
    <div class="connection-banner" role="status">
      You are offline. What is on screen stays; new posts and messages arrive when the network is back.
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
      <h1>You are offline</h1>
      <p role="alert">{problem}</p>
      {kept === undefined ? null : kept ? (
        <p>
          This device keeps the app itself ({kept.files} files), so it opens without a network. Posts, messages and
          notifications are not stored on the device: they load when the network is back.
        </p>
      ) : (
        <p>Nothing of this app is kept on this device yet.</p>
      )}
      <button type="button" onClick={() => location.reload()}>
        Try again
      </button>
    </div>
  );
}
