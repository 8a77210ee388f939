import { Elysia } from "elysia";
import { defineService, type App } from "../app";
import { notFound } from "../lib/errors";
import { loadSharp } from "../media/sharp";
import { fileStore } from "../media/store";
import { FILES_PATH } from "../media/uploads";
import serviceWorkerSource from "../web/service-worker.js" with { type: "text" };
import { respondWithFile, SERVER_PATH, staticFile, THEME_COLORS, webBundle, type StaticFile } from "./web-app";

/**
 * The installable app: the web manifest (from the instance's identity), its icons (made with
 * sharp from the icon an administrator uploaded, config instance.icon, or the default one),
 * and the service worker with the list of the running build's files.
 */

/** Every icon the page and the manifest name: path → size in pixels and how it is drawn. */
export const APP_ICONS = {
  "icon-192.png": { size: 192, purpose: "any" },
  "icon-512.png": { size: 512, purpose: "any" },
  "maskable-512.png": { size: 512, purpose: "maskable" },
  "apple-touch-icon.png": { size: 180, purpose: "opaque" },
  "favicon-32.png": { size: 32, purpose: "any" },
} as const;
type IconName = keyof typeof APP_ICONS;
export const ICONS_PATH = "/icons/";

/** The default icon: a speech bubble on the accent colour, drawn for any size. */
const DEFAULT_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
<rect width="512" height="512" rx="112" fill="${THEME_COLORS.accent}"/>
<path d="M136 150h240a40 40 0 0 1 40 40v120a40 40 0 0 1-40 40H236l-76 56v-56h-24a40 40 0 0 1-40-40V190a40 40 0 0 1 40-40z" fill="#fff"/>
<circle cx="196" cy="250" r="22" fill="${THEME_COLORS.accent}"/><circle cx="256" cy="250" r="22" fill="${THEME_COLORS.accent}"/><circle cx="316" cy="250" r="22" fill="${THEME_COLORS.accent}"/>
</svg>`;

/** Rendered icons of the current source (the uploaded file's key, or "" for the default), made on first request. */
const iconCache = defineService("pwa:icons", () => ({ source: "", icons: new Map<IconName, Promise<StaticFile>>() }));

/** The stored file's key of config instance.icon ("/files/<key>" or an absolute URL of this instance), or null. */
export function instanceIconKey(app: App): string | null {
  const value = app.config["instance.icon"];
  if (!value) return null;
  const path = value.startsWith("/") ? value : new URL(value).pathname;
  return path.startsWith(FILES_PATH) ? path.slice(FILES_PATH.length) : null;
}

async function iconSource(app: App): Promise<Uint8Array> {
  const key = instanceIconKey(app);
  const stored = key ? await fileStore(app).get(key) : null;
  // an icon file gone from the store falls back to the default rather than breaking installs
  return stored ? await stored.body.bytes() : new TextEncoder().encode(DEFAULT_ICON_SVG);
}

async function renderIcon(app: App, name: IconName): Promise<StaticFile> {
  const sharp = await loadSharp(app);
  const { size, purpose } = APP_ICONS[name];
  const source = await iconSource(app);
  let image;
  if (purpose === "maskable") {
    // a maskable icon's launcher may crop to its safe zone: the icon sits inside it on the theme colour
    const inner = Math.round(size * 0.7);
    const logo = await sharp(source, { density: 300 })
      .resize(inner, inner, { fit: "contain", background: "#0000" })
      .png()
      .toBuffer();
    image = sharp({ create: { width: size, height: size, channels: 4, background: THEME_COLORS.accent } }).composite([
      { input: logo, gravity: "centre" },
    ]);
  } else {
    image = sharp(source, { density: 300 }).resize(size, size, { fit: "contain", background: "#0000" });
    // iOS paints transparent pixels of a home-screen icon black
    if (purpose === "opaque") image = image.flatten({ background: "#ffffff" });
  }
  return staticFile(new Uint8Array(await image.png().toBuffer()), "image/png");
}

/** The PNG of icon NAME for the instance's current icon. */
export function appIcon(app: App, name: IconName): Promise<StaticFile> {
  const cache = app.services.get(iconCache);
  const source = app.config["instance.icon"];
  if (cache.source !== source) {
    cache.source = source;
    cache.icons.clear();
  }
  let icon = cache.icons.get(name);
  if (!icon) {
    icon = renderIcon(app, name);
    icon.catch(() => cache.icons.delete(name));
    cache.icons.set(name, icon);
  }
  return icon;
}

/** The web manifest of the instance (what a browser installs: name, colours, icons). */
export function webManifest(app: App) {
  const name = app.config["instance.name"];
  const icon = (file: IconName, purpose: "any" | "maskable") => ({
    src: `${ICONS_PATH}${file}`,
    sizes: `${APP_ICONS[file].size}x${APP_ICONS[file].size}`,
    type: "image/png",
    purpose,
  });
  return {
    id: "/",
    name,
    short_name: name.length > 12 ? name.slice(0, 12).trim() : name,
    description: app.config["instance.description"] || `${name}: posts, messages and bots`,
    start_url: "/",
    scope: "/",
    display: "standalone",
    theme_color: THEME_COLORS.light,
    background_color: THEME_COLORS.light,
    icons: [icon("icon-192.png", "any"), icon("icon-512.png", "any"), icon("maskable-512.png", "maskable")],
  };
}

/**
 * The service worker's script: what the build holds (version, page, chunks) in front of its
 * source. Only the build's facts: a browser takes any other byte changed for a new version.
 */
export async function serviceWorkerScript(): Promise<string> {
  const web = await webBundle();
  const files = [...web.assets.keys()].filter((path) => !path.endsWith(".map")).sort();
  const build = {
    version: Bun.hash(`${web.page.etag} ${files.join(" ")}`).toString(36),
    shell: "/",
    files,
    icon: `${ICONS_PATH}icon-192.png`,
    // what the worker leaves to the network, as the server tells its own paths from the app's
    serverPath: SERVER_PATH.source,
  };
  return `const BUILD = ${JSON.stringify(build)};\n${serviceWorkerSource}`;
}

const isIconName = (name: string): name is IconName => Object.hasOwn(APP_ICONS, name);

/** /manifest.webmanifest, /icons/<name>.png and /sw.js. */
export function pwaRoutes(app: App) {
  return new Elysia({ name: "pwa" })
    .get("/manifest.webmanifest", ({ request }) =>
      respondWithFile(
        request,
        staticFile(new TextEncoder().encode(JSON.stringify(webManifest(app))), "application/manifest+json"),
        { "cache-control": "no-cache" },
      ),
    )
    .get(`${ICONS_PATH}:name`, async ({ request, params }) => {
      if (!isIconName(params.name)) throw notFound();
      // revalidated: an administrator may change the icon at any time
      return respondWithFile(request, await appIcon(app, params.name), { "cache-control": "no-cache" });
    })
    .get("/sw.js", async ({ request }) =>
      respondWithFile(request, staticFile(new TextEncoder().encode(await serviceWorkerScript()), "text/javascript"), {
        // the browser checks for a new worker on every navigation; a cached script would hide an update
        "cache-control": "no-cache",
        "service-worker-allowed": "/",
      }),
    );
}
