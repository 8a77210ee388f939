/**
 * The web app's service worker, served at /sw.js (root scope) by src/http/pwa.ts, which puts
 * `const BUILD = {version, shell, files, icon, serverPath}` in front of this file: the build's
 * version (a hash of its files), the app page's path, every hashed chunk of that build, the
 * instance icon's path and the pattern of the server's own paths.
 *
 * What it keeps, in one cache per build ("shell-<version>"): the app page and its hashed
 * chunks (scripts, styles), nothing else. API answers (/api/…), uploaded files (/files/…),
 * the Bot API and every other request go to the network untouched, so nothing private is
 * ever written to the cache. The web manifest and the instance's icons are public and are
 * kept in a second cache ("public") as a fallback for when the network is gone.
 *
 * Updating: a new build's worker installs beside the running one and waits; the page shows
 * "A new version is available" and its Reload button asks the waiting worker to take over
 * ("skip-waiting"). The previous build's cache is kept until the next update, so a page still
 * running the previous build (another tab) can load its lazy chunks.
 */
/* global BUILD */
/// <reference lib="webworker" />

const SHELL_PREFIX = "shell-";
const SHELL_CACHE = `${SHELL_PREFIX}${BUILD.version}`;
const PUBLIC_CACHE = "public";
const CHUNKS = new Set(BUILD.files);
/** paths of the server that are never the app's (src/http/web-app.ts SERVER_PATH) */
const SERVER_PATH = new RegExp(BUILD.serverPath);
const PUBLIC_FILES = /^\/(manifest\.webmanifest|icons\/[a-z0-9-]+\.png)$/;

/** The page asked for text/html: the server answers client routes only to navigations. */
const shellRequest = () => new Request(BUILD.shell, { headers: { accept: "text/html" }, cache: "reload" });

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE).then(async (cache) => {
      await cache.put(BUILD.shell, await fetch(shellRequest()).then(okOrThrow));
      await cache.addAll(BUILD.files.map((path) => new Request(path, { cache: "reload" })));
    }),
  );
});

function okOrThrow(response) {
  if (!response.ok) throw new Error(`the app page answered ${response.status}`);
  return response;
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const older = (await caches.keys()).filter((key) => key.startsWith(SHELL_PREFIX) && key !== SHELL_CACHE);
      // caches.keys() lists in creation order: keep the newest older build for pages still running it
      await Promise.all(older.slice(0, -1).map((key) => caches.delete(key)));
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "skip-waiting") self.skipWaiting();
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || SERVER_PATH.test(url.pathname)) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => cachedShell()));
  } else if (CHUNKS.has(url.pathname)) {
    event.respondWith(cachedFirst(request));
  } else if (/^\/chunk-[^/]+$/.test(url.pathname)) {
    // a chunk of the previous build, asked by a page still running it
    event.respondWith(cachedFirst(request));
  } else if (PUBLIC_FILES.test(url.pathname)) {
    event.respondWith(networkThenPublicCache(request));
  }
});

async function cachedShell() {
  const hit = await caches.match(BUILD.shell, { cacheName: SHELL_CACHE, ignoreVary: true });
  return hit || Response.error();
}

async function cachedFirst(request) {
  const hit = await caches.match(request, { ignoreVary: true });
  return hit || fetch(request);
}

async function networkThenPublicCache(request) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const copy = response.clone();
      const cache = await caches.open(PUBLIC_CACHE);
      await cache.put(request, copy);
    }
    return response;
  } catch (err) {
    const hit = await caches.match(request, { cacheName: PUBLIC_CACHE, ignoreVary: true });
    if (hit) return hit;
    throw err;
  }
}

/** A same-origin path from a push's url (anything else opens the app's start). */
function appPath(url) {
  try {
    const target = new URL(url || "/", self.location.origin);
    return target.origin === self.location.origin ? target.pathname + target.search + target.hash : "/";
  } catch {
    return "/";
  }
}

/**
 * A push's payload is JSON {kind, title, body, url}. Messages of one chat share a tag (their
 * url is the chat's), so a chat shows one notification, replaced by its newest message.
 */
self.addEventListener("push", (event) => {
  let payload = {};
  try {
    payload = event.data ? event.data.json() : {};
  } catch {
    payload = { title: event.data ? event.data.text() : "" };
  }
  const url = appPath(payload.url);
  const tag = payload.kind === "messages" ? `chat ${url}` : undefined;
  event.waitUntil(
    self.registration.showNotification(payload.title || new URL(self.registration.scope).host, {
      body: payload.body || "",
      icon: BUILD.icon,
      badge: BUILD.icon,
      tag,
      renotify: Boolean(tag),
      data: { url, kind: payload.kind || "" },
    }),
  );
});

/**
 * Focuses an open window of the app and shows the notification's screen there (the page routes
 * in place on a "navigate" message, keeping its state); with none open, opens one.
 */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = appPath(event.notification.data && event.notification.data.url);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const app = windows.find((client) => !SERVER_PATH.test(new URL(client.url).pathname));
      if (!app) return self.clients.openWindow(url);
      app.postMessage({ type: "navigate", url });
      return app.focus();
    })(),
  );
});
