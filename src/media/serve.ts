import { Elysia } from "elysia";
import type { App } from "../app";
import { clientErrorResponse } from "../http/envelope";
import { notFound } from "../lib/errors";
import { OCTET_STREAM, TYPES_BY_EXT } from "./sniff";
import { fileStore } from "./store";
import { REDIRECT_CACHE_SECONDS } from "./s3-store";
import { FILE_NAME, originalNameOf } from "./uploads";

const YEAR_SECONDS = 365 * 24 * 3600;

export type ByteRange = { start: number; end: number };

/**
 * Parses a Range header against a file of SIZE bytes: null → serve the whole file (absent,
 * another unit, or several ranges, which RFC 9110 lets a server ignore), "unsatisfiable"
 * → 416, else one inclusive byte range.
 */
export function parseRange(header: string | null, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return null;
  const specs = m[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return specs.length === 0 ? "unsatisfiable" : null;
  const r = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (!r || (r[1] === "" && r[2] === "")) return "unsatisfiable";
  if (r[1] === "") {
    // suffix range: the last N bytes
    const n = Number(r[2]);
    if (n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(r[1]);
  const end = r[2] === "" ? size - 1 : Math.min(Number(r[2]), size - 1);
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name. */
export function contentDisposition(type: "inline" | "attachment", name: string | null): string {
  if (!name) return type;
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * GET/HEAD {baseUrl}/files/<name>: uploaded files with their real type, nosniff, inline only
 * for media (everything else downloads), immutable caching with an ETag, and byte ranges
 * for video seeking. Names are checked against the server-made pattern before any storage
 * access, so no encoded path can reach outside the store.
 */
export function fileRoutes(app: App) {
  const serve = async ({ params, request }: { params: { name: string }; request: Request }) => {
    const name = params.name;
    // the exact path only: no trailing slash, no encoded separators (the name pattern has none)
    if (!FILE_NAME.test(name) || new URL(request.url).pathname !== `/files/${name}`)
      return clientErrorResponse(notFound(), request);
    return (await storedFileResponse(app, name, request)) ?? clientErrorResponse(notFound(), request);
  };
  return new Elysia({ name: "files" }).get("/files/:name", serve).head("/files/:name", serve);
}

/**
 * The answer for stored file NAME (already checked against FILE_NAME) to REQUEST, with the
 * headers above, conditional requests and ranges; null when the store has no such file.
 * Also serves the Bot API's download route (/file/bot<TOKEN>/<file_path>).
 */
export async function storedFileResponse(app: App, name: string, request: Request): Promise<Response | null> {
  const store = fileStore(app);
  const file = await store.get(name);
  if (!file) return null;
  const redirect = store.redirectUrl(name);
  if (redirect) {
    // the presigned URL expires: the redirect may be cached only for less than it lives
    return new Response(null, {
      status: 302,
      headers: { location: redirect, "cache-control": `private, max-age=${REDIRECT_CACHE_SECONDS}` },
    });
  }
  const ext = name.slice(name.lastIndexOf(".") + 1);
  const type = TYPES_BY_EXT[ext] ?? OCTET_STREAM;
  const inline = type.class !== "file";
  const etag = `"${name.slice(0, 24)}-${file.size.toString(36)}"`;
  const headers: Record<string, string> = {
    "content-type": type.mime,
    "x-content-type-options": "nosniff",
    "content-disposition": inline ? "inline" : contentDisposition("attachment", await originalNameOf(app, name)),
    "cache-control": `public, max-age=${YEAR_SECONDS}, immutable`,
    etag,
    "accept-ranges": "bytes",
    // a file is never a page: no scripts, no plugins, even if a browser were to render it
    "content-security-policy": "default-src 'none'; sandbox",
    "last-modified": new Date(file.mtimeMs).toUTCString(),
  };
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  const ifRange = request.headers.get("if-range");
  const range = ifRange && ifRange.trim() !== etag ? null : parseRange(request.headers.get("range"), file.size);
  const head = request.method === "HEAD";
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${file.size}` } });
  }
  if (range) {
    const length = range.end - range.start + 1;
    const partial = {
      ...headers,
      "content-range": `bytes ${range.start}-${range.end}/${file.size}`,
      "content-length": String(length),
    };
    return new Response(head ? null : file.send(range.start, range.end + 1), { status: 206, headers: partial });
  }
  return new Response(head ? null : file.send(), {
    status: 200,
    headers: { ...headers, "content-length": String(file.size) },
  });
}
