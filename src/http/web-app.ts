import { Elysia } from "elysia";
import { watch } from "node:fs";
import type { App } from "../app";
import { notFound } from "../lib/errors";
import index from "../web/index.html";

/**
 * Serves the web app (src/web/, bundled by Bun from the HTML import above): its hashed
 * chunks, and its page for every client route (SPA fallback). In the compiled binary the
 * bundle was made by `bun build --compile` and is embedded (`index.files`); from source it
 * is bundled in memory on first use with the same options, so tests and `npm start` serve
 * exactly what the binary serves, through the same headers.
 */

/** Bun.build options of the client bundle, shared with scripts/build.ts (the compiled binary). */
export const WEB_BUILD_OPTIONS = {
  // the development JSX runtime is several KB heavier and warns in the console
  jsx: { development: false },
  // absolute asset URLs: a deep link such as /auth/link?t=… must not resolve ./chunk.js relative to /auth/
  publicPath: "/",
  // screens are lazy imports; without splitting everything lands in one chunk
  splitting: true,
  minify: true,
} as const;

type Bytes = Uint8Array<ArrayBuffer>;

/** A file served with compression and an ETag (the web app's, and the API reference's). */
export interface StaticFile {
  body: Bytes;
  contentType: string;
  etag: string;
  /** gzip and brotli variants, made on first request and kept */
  encoded: Map<string, Promise<{ body: Bytes; etag: string }>>;
}

interface WebBundle {
  page: StaticFile;
  /** the page with the instance's head (see pageWithHead), for the last name asked */
  named?: { name: string; page: StaticFile };
  /** "/chunk-abc123.js" → file; every name carries a content hash */
  assets: Map<string, StaticFile>;
  /** JS of the first screen: the page's own scripts and their static imports (for budgets) */
  entryScripts: string[];
}

/**
 * Brotli through node:zlib, loaded on the first compressed response: the module (with the
 * node:stream machinery under it) would add CPU and memory to every start otherwise.
 */
function brotli(body: Bytes, quality: number): Promise<Bytes> {
  const zlib = require("node:zlib") as typeof import("node:zlib");
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
  };
  return new Promise((resolve, reject) =>
    zlib.brotliCompress(body, { params }, (err, out) => (err ? reject(err) : resolve(new Uint8Array(out) as Bytes))),
  );
}
const COMPRESSIBLE = /^(text\/|application\/(javascript|json|manifest\+json)|image\/svg\+xml)/;

export function staticFile(body: Bytes, contentType: string): StaticFile {
  return { body, contentType, etag: `"${Bun.hash(body).toString(36)}"`, encoded: new Map() };
}

async function loadEmbedded(): Promise<WebBundle> {
  const files = index.files!;
  const assets = new Map<string, StaticFile>();
  let page: StaticFile | null = null;
  for (const f of files) {
    const body = new Uint8Array(await Bun.file(f.path).arrayBuffer());
    const file = staticFile(body, f.headers["content-type"]);
    if (f.loader === "html") page = file;
    else assets.set(`/${f.path.split("/").pop()}`, file);
  }
  if (!page) throw new Error("the embedded web app has no page");
  return { page, assets, entryScripts: scriptsOf(new TextDecoder().decode(page.body)) };
}

async function buildFromSource(): Promise<WebBundle> {
  const result = await Bun.build({ entrypoints: [index.index], target: "browser", ...WEB_BUILD_OPTIONS });
  if (!result.success) throw new AggregateError(result.logs, "the web app did not build");
  const assets = new Map<string, StaticFile>();
  let page: StaticFile | null = null;
  for (const out of result.outputs) {
    const file = staticFile(new Uint8Array(await out.arrayBuffer()), out.type);
    if (out.path.endsWith(".html")) page = file;
    else assets.set(out.path.replace(/^\.\//, "/"), file);
  }
  if (!page) throw new Error("the web app build made no page");
  return { page, assets, entryScripts: scriptsOf(new TextDecoder().decode(page.body)) };
}

const scriptsOf = (html: string) => [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);

let bundle: Promise<WebBundle> | null = null;
/** The app's files, built or read once per process. */
export function webBundle(): Promise<WebBundle> {
  bundle ??= (index.files?.length ? loadEmbedded() : buildFromSource()).catch((err) => {
    bundle = null;
    throw err;
  });
  return bundle;
}

/**
 * `npm run dev`: from source, a change under src/web drops the bundle so the next page load is
 * built from the new code (`bun --watch` restarts on server changes only: the web files are
 * bundled, never imported by the server). The compiled binary has nothing to watch.
 */
export function rebuildWebOnChange(): { close(): void } | null {
  if (index.files?.length) return null;
  const webDir = new URL("../web/", import.meta.url).pathname;
  return watch(webDir, { recursive: true }, () => {
    bundle = null;
  });
}

/** Chooses br, then gzip, from Accept-Encoding (q=0 refuses). */
function pickEncoding(accept: string | null): "br" | "gzip" | null {
  if (!accept) return null;
  const offered = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    offered.set(name!, q ? Number(q.slice(2)) : 1);
  }
  const ok = (name: string) => (offered.get(name) ?? offered.get("*") ?? 0) > 0;
  return ok("br") ? "br" : ok("gzip") ? "gzip" : null;
}

function encodedVariant(file: StaticFile, encoding: "br" | "gzip") {
  let variant = file.encoded.get(encoding);
  if (!variant) {
    // brotli at its best level takes ~1 s for a few hundred KB: done off the event loop, once
    const compressed =
      encoding === "br"
        ? // the best level costs seconds on a large file (the API reference: Swagger UI, the OpenAPI documents)
          brotli(file.body, file.body.length > 256 * 1024 ? 5 : 11)
        : Promise.resolve(Bun.gzipSync(file.body, { level: 9 }) as Bytes);
    variant = compressed.then((body) => ({ body, etag: `${file.etag.slice(0, -1)}-${encoding}"` }));
    file.encoded.set(encoding, variant);
  }
  return variant;
}

/** Whether an If-None-Match header names ETAG (or is *). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/** FILE for REQUEST: br or gzip when accepted, 304 for a matching If-None-Match, HEADERS added. */
export async function respondWithFile(
  request: Request,
  file: StaticFile,
  headers: Record<string, string>,
): Promise<Response> {
  const h: Record<string, string> = {
    "content-type": file.contentType,
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
    ...headers,
  };
  const encoding =
    COMPRESSIBLE.test(file.contentType) && file.body.length > 512
      ? pickEncoding(request.headers.get("accept-encoding"))
      : null;
  let body = file.body;
  let etag = file.etag;
  if (encoding) {
    const variant = await encodedVariant(file, encoding);
    body = variant.body;
    etag = variant.etag;
    h["content-encoding"] = encoding;
  }
  h.etag = etag;
  if (matchesEtag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: h });
  return new Response(request.method === "HEAD" ? null : body, { headers: h });
}

/** The colours the browser paints around the app (theme-color, the manifest, the default icon): base.css's surfaces and accent. */
export const THEME_COLORS = { light: "#ffffff", dark: "#181b21", accent: "#2456d6" } as const;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * The page as served: the instance's name as its title, and the links of the installable app
 * (manifest, icons, theme colours), which the bundler would otherwise try to bundle as files.
 */
function pageWithHead(web: WebBundle, name: string): StaticFile {
  if (web.named?.name === name) return web.named.page;
  const head = [
    `<title>${escapeHtml(name)}</title>`,
    `<link rel="manifest" href="/manifest.webmanifest" />`,
    `<link rel="icon" type="image/png" sizes="32x32" href="/icons/favicon-32.png" />`,
    `<link rel="apple-touch-icon" href="/icons/apple-touch-icon.png" />`,
    `<meta name="theme-color" media="(prefers-color-scheme: light)" content="${THEME_COLORS.light}" />`,
    `<meta name="theme-color" media="(prefers-color-scheme: dark)" content="${THEME_COLORS.dark}" />`,
  ].join("");
  const html = new TextDecoder().decode(web.page.body).replace(/<title>[^<]*<\/title>/, head);
  const page = staticFile(new TextEncoder().encode(html) as Bytes, web.page.contentType);
  web.named = { name, page };
  return page;
}

/** Paths that are never the app's: APIs (their 404s stay JSON), the Bot API, uploaded files. */
export const SERVER_PATH = /^\/(api(\/|$)|bot|files\/|healthz$)/;
export const isServerPath = (pathname: string) => SERVER_PATH.test(pathname);

/** Headers of the page: it runs only our own scripts and styles, and shows media from this instance. */
function pageHeaders(app: App): Record<string, string> {
  const base = new URL(app.config.baseUrl);
  const media = `'self' ${base.origin}`;
  const sockets = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}`;
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // data: for the registration captcha (a PNG data URL), blob: for previews of files before upload
    `img-src ${media} data: blob:`,
    `media-src ${media} blob:`,
    `connect-src 'self' ${sockets}`,
    "font-src 'self'",
    // bots' mini-apps (web_app buttons are https only) run in a sandboxed frame of the chat
    "frame-src https:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    "content-security-policy": csp,
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-cache",
  };
}

/** GET/HEAD of any path that is not the server's: a hashed chunk, the app page, or a JSON 404. */
export function webAppRoutes(app: App) {
  const headers = pageHeaders(app);
  const serve = async ({ request }: { request: Request }) => {
    const { pathname } = new URL(request.url);
    if (isServerPath(pathname)) throw notFound();
    const navigating = (request.headers.get("accept") ?? "").includes("text/html");
    const fileLike = /\.[a-z0-9]+$/i.test(pathname);
    // a program asking for a client route gets its JSON 404 without waiting for the app's files
    if (!navigating && !fileLike) throw notFound();
    const web = await webBundle();
    const asset = web.assets.get(pathname);
    if (asset)
      return respondWithFile(request, asset, {
        "cache-control": "public, max-age=31536000, immutable",
        "referrer-policy": "same-origin",
      });
    // a client route: only browsers navigating (Accept: text/html) get the page; a missing chunk or a program gets a 404
    if (!navigating || fileLike) throw notFound();
    return respondWithFile(request, pageWithHead(web, app.config["instance.name"]), headers);
  };
  return new Elysia({ name: "web-app" }).get("/", serve).get("/*", serve).head("/", serve).head("/*", serve);
}
