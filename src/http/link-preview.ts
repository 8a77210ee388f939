import { Parser } from "htmlparser2";
import { defineService, type App } from "../app";
import {
  applyPagePreview,
  keepPagePreview,
  keptPagePreview,
  LINK_PREVIEW_JOB,
  type LinkPreviewJob,
  type PagePreview,
} from "../domain/links/preview";
import { PermanentJobError, registerJobHandler } from "../jobs/queue";
import { allowPrivatePreviews, fetchFollowing } from "./outbound";

/** How long reading one page may take, redirects and name lookups included. */
export const PREVIEW_TIMEOUT_MS = 5_000;
/** How much of a page is read: its head comes first, and what lies past this is not looked at. */
export const MAX_PAGE_BYTES = 512 * 1024;

const MAX_TITLE = 300;
const MAX_DESCRIPTION = 1000;
const MAX_SITE_NAME = 100;
const MAX_IMAGE_URL = 2048;

/** The tags a preview is read from, by field, the first that a page gives winning. */
const SOURCES = {
  title: ["og:title", "twitter:title"],
  description: ["og:description", "twitter:description", "description"],
  imageUrl: ["og:image:secure_url", "og:image:url", "og:image", "twitter:image", "twitter:image:src"],
  siteName: ["og:site_name", "application-name"],
} as const;

/** Text as a card shows it: whitespace collapsed, cut to MAX characters (code points) with an ellipsis. */
function cleanText(raw: string | undefined, max: number): string | null {
  if (raw === undefined) return null;
  const text = raw.replace(/\s+/g, " ").trim();
  if (!text) return null;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** An image URL the page names, made absolute against the page; only http(s). */
function imageUrlOf(raw: string | undefined, page: URL): string | null {
  if (!raw?.trim()) return null;
  try {
    const url = new URL(raw.trim(), page);
    if ((url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) return null;
    const text = url.toString();
    return text.length <= MAX_IMAGE_URL ? text : null;
  } catch {
    return null;
  }
}

/**
 * What HTML (a page read from PAGE) says of itself: OpenGraph, then Twitter card tags, then
 * <title> and the meta description; null when it gives neither a title nor a description.
 * Tags are read in the head only, where pages put them (a body may quote such tags as text).
 */
export function readPagePreview(html: string, page: URL): PagePreview | null {
  const meta = new Map<string, string>();
  let title = "";
  let inTitle = false;
  let titleSeen = false;
  let inBody = false;
  // svg has <title> elements of its own
  let svgDepth = 0;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (inBody) return;
        if (name === "body") inBody = true;
        else if (name === "svg") svgDepth++;
        else if (name === "title" && svgDepth === 0 && !titleSeen) inTitle = true;
        else if (name === "meta") {
          const key = (attrs.property ?? attrs.name ?? "").trim().toLowerCase();
          if (key && attrs.content !== undefined && !meta.has(key)) meta.set(key, attrs.content);
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          titleSeen = true;
        } else if (name === "svg" && svgDepth > 0) svgDepth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const first = (keys: readonly string[]) => keys.map((k) => meta.get(k)).find((v) => v?.trim());
  const preview: PagePreview = {
    title: cleanText(first(SOURCES.title) ?? (titleSeen || title ? title : undefined), MAX_TITLE),
    description: cleanText(first(SOURCES.description), MAX_DESCRIPTION),
    imageUrl: imageUrlOf(first(SOURCES.imageUrl), page),
    siteName: cleanText(first(SOURCES.siteName), MAX_SITE_NAME),
  };
  return preview.title === null && preview.description === null ? null : preview;
}

/**
 * The charset of a page: the Content-Type's, else a <meta charset> or http-equiv in its first
 * bytes (as browsers look for it), else a byte-order mark, else UTF-8. A name TextDecoder does
 * not know counts as UTF-8.
 */
export function decodePage(bytes: Uint8Array, contentType: string | null): string {
  const label =
    /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? "")?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(new TextDecoder("latin1").decode(bytes.subarray(0, 1024)))?.[1] ??
    (bytes[0] === 0xfe && bytes[1] === 0xff
      ? "utf-16be"
      : bytes[0] === 0xff && bytes[1] === 0xfe
        ? "utf-16le"
        : "utf-8");
  try {
    return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** The first MAX bytes of a response body (all of it when shorter); the rest is never read. */
async function readPrefix(res: Response, max: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, max - total));
    total += value.byteLength;
  }
  if (total >= max) await reader.cancel().catch(() => undefined);
  return new Uint8Array(Buffer.concat(chunks));
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Reads the page at URL for its preview under the outbound-URL policy: public addresses only
 * (unless links.allowPrivatePreviews), every redirect checked again, PREVIEW_TIMEOUT_MS in all,
 * HTML only, MAX_PAGE_BYTES at most. Null for anything else: a preview is a nicety, so every
 * failure is the same quiet "nothing to show" (and the cause goes to the debug log).
 */
export async function fetchPagePreview(app: App, url: string): Promise<PagePreview | null> {
  const signal = AbortSignal.timeout(PREVIEW_TIMEOUT_MS);
  const origin = (() => {
    try {
      return new URL(url).origin;
    } catch {
      return "(not a URL)";
    }
  })();
  const skip = (cause: string) => {
    app.log.debug("link preview not made", { origin, cause });
    return null;
  };
  const read = async (): Promise<PagePreview | null> => {
    const { res, url: final } = await fetchFollowing(app, url, {
      signal,
      privateOk: allowPrivatePreviews(app),
      httpOk: true,
      headers: { accept: "text/html,application/xhtml+xml;q=0.9", "accept-language": "*" },
      onCause: skip,
    });
    const type = res.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
    if (!res.ok || !HTML_TYPES.has(type)) {
      await res.body?.cancel().catch(() => undefined);
      return skip(res.ok ? `not HTML (${type || "no type"})` : `HTTP ${res.status}`);
    }
    const bytes = await readPrefix(res, MAX_PAGE_BYTES);
    return readPagePreview(decodePage(bytes, res.headers.get("content-type")), final);
  };
  // the signal stops the requests; the race also bounds the name lookups, which take no signal
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>(
    (resolve) => (timer = setTimeout(() => resolve(skip("timed out")), PREVIEW_TIMEOUT_MS)),
  );
  try {
    return await Promise.race([read(), late]);
  } catch (err) {
    return skip(err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
  }
}

// pages being read by this process, by URL: a page named by many posts at once is read once
const readingService = defineService("links:reading", () => new Map<string, Promise<PagePreview | null>>());

/** The preview of the page at URL: kept while fresh, else read now and kept (a failure too, for less long). */
export async function pagePreviewOf(app: App, url: string): Promise<PagePreview | null> {
  const kept = await keptPagePreview(app.db, url, app.clock.now());
  if (kept) return kept.preview;
  const reading = app.services.get(readingService);
  let pending = reading.get(url);
  if (!pending) {
    pending = (async () => {
      try {
        const preview = await fetchPagePreview(app, url);
        await keepPagePreview(app.db, url, preview, app.clock.now());
        return preview;
      } finally {
        reading.delete(url);
      }
    })();
    reading.set(url, pending);
  }
  return pending;
}

const isPreviewJob = (payload: unknown): payload is LinkPreviewJob => {
  const job = payload as Partial<LinkPreviewJob> | null;
  return (
    typeof job === "object" &&
    job !== null &&
    (job.table === "posts" || job.table === "messages") &&
    typeof job.id === "number" &&
    typeof job.url === "string"
  );
};

/** Link previews of posts and messages are read by the job queue, off the request that stored them. */
export function installLinkPreviews(app: App): void {
  registerJobHandler(app, {
    kind: LINK_PREVIEW_JOB,
    // a page that cannot be read is kept as "nothing to show": only the database's own failures retry
    maxAttempts: 3,
    backoffMs: 2_000,
    timeoutMs: PREVIEW_TIMEOUT_MS * 3,
    handle: async (payload) => {
      if (!isPreviewJob(payload)) throw new PermanentJobError("a link preview job without its post or message");
      await applyPagePreview(app, payload, await pagePreviewOf(app, payload.url));
    },
  });
}
