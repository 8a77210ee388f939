import { signal } from "@preact/signals";

/**
 * The page's side of the service worker (/sw.js, src/web/service-worker.js): registers it,
 * says when a new version waits, hands over to it when the person asks, and follows the
 * worker's "navigate" messages (a notification clicked while the app is open).
 */

/** A new version's worker, installed and waiting for the person to reload; null when none. */
export const waitingWorker = signal<ServiceWorker | null>(null);
/** Whether the browser says the device has no network. */
export const offline = signal(typeof navigator !== "undefined" && navigator.onLine === false);

/** Registers the worker and watches for updates; NAVIGATE shows a screen of the app in place. */
export function startServiceWorker(navigate: (url: string) => void): void {
  addEventListener("online", () => (offline.value = false));
  addEventListener("offline", () => (offline.value = true));
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event) => {
    const data = event.data as { type?: string; url?: string } | null;
    if (data?.type === "navigate" && typeof data.url === "string" && data.url.startsWith("/")) navigate(data.url);
  });
  navigator.serviceWorker
    .register("/sw.js", { scope: "/" })
    .then((registration) => {
      const watch = (worker: ServiceWorker | null) => {
        if (!worker) return;
        const settle = () => {
          // installed while another version controls this page: an update (the first install is not)
          if (worker.state === "installed" && navigator.serviceWorker.controller) waitingWorker.value = worker;
        };
        settle();
        worker.addEventListener("statechange", settle);
      };
      watch(registration.waiting);
      watch(registration.installing);
      registration.addEventListener("updatefound", () => watch(registration.installing));
      // a page left open for days still learns about a deploy
      const check = () => void registration.update().catch(() => undefined);
      setInterval(check, 60 * 60 * 1000);
      document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && check());
    })
    .catch((err) => console.warn("the service worker did not register", err));
}

/** Lets the waiting version take over, then reloads this page on it (other open pages keep running theirs). */
export function reloadToNewVersion(): void {
  const worker = waitingWorker.value;
  if (!worker) return location.reload();
  navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
  worker.postMessage({ type: "skip-waiting" });
}

/** What the device kept for offline use: the app's files of the newest build, or null when nothing. */
export async function keptForOffline(): Promise<{ files: number } | null> {
  if (typeof caches === "undefined") return null;
  const shells = (await caches.keys()).filter((key) => key.startsWith("shell-"));
  if (shells.length === 0) return null;
  const cache = await caches.open(shells[shells.length - 1]!);
  return { files: (await cache.keys()).length };
}
