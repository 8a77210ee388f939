import type { App } from "../../app";
import { allowPrivate, fetchFollowing } from "../../http/outbound";

/**
 * Whether a mini-app's page lets this instance's web app show it in a frame: "refused" when its
 * answer forbids it (Content-Security-Policy frame-ancestors, else X-Frame-Options), "allowed"
 * when it does not, "unknown" when it could not be asked (not public, unreachable, too slow).
 */
export type Framing = "allowed" | "refused" | "unknown";

const CHECK_TIMEOUT_MS = 3000;

/** What of a mini-app's launch URL may be logged: its origin and path, never its query or fragment. */
export function originAndPath(url: string): { origin: string; path: string } {
  try {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: parsed.pathname };
  } catch {
    return { origin: "(not a URL)", path: "" };
  }
}

/**
 * Asks the mini-app's server (a GET of the page, without the launch data: a fragment is never
 * sent) under the same outbound rules as every bot-supplied URL: public addresses only, each
 * redirect checked again. With private targets allowed (bot development on this machine) the
 * certificate is not checked, as a local mini-app's usually is self-signed: the answer only
 * chooses between a frame and a new tab.
 */
export async function webAppFraming(app: App, url: string): Promise<Framing> {
  const frameOrigin = new URL(app.config.baseUrl).origin;
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  const ask = async (): Promise<Framing> => {
    const { res, url: final } = await fetchFollowing(app, url.replace(/#.*$/, ""), {
      signal,
      tls: allowPrivate(app) ? { rejectUnauthorized: false } : undefined,
      // origin and path only: the fragment carries the person's signed launch data, the query the bot's own values
      onCause: (cause) => app.log.info("mini-app framing not checked", { ...originAndPath(url), cause }),
    });
    await res.body?.cancel();
    return framingVerdict(res.headers, frameOrigin, final.origin);
  };
  // the signal stops the requests; the race also bounds the name lookups, which take no signal
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Framing>((resolve) => (timer = setTimeout(() => resolve("unknown"), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([ask(), late]);
  } catch {
    return "unknown";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The browser's decision for a page at PAGE_ORIGIN answered with HEADERS, framed by a page at
 * FRAME_ORIGIN: an enforced CSP frame-ancestors decides when present (XFO is then ignored, as
 * browsers do); else X-Frame-Options DENY refuses and SAMEORIGIN refuses another origin.
 */
export function framingVerdict(headers: Headers, frameOrigin: string, pageOrigin: string): Framing {
  // several policies arrive joined by commas; each is enforced, so any one can refuse
  const ancestors = (headers.get("content-security-policy") ?? "")
    .split(",")
    .map((policy) =>
      policy
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .find(([name]) => name?.toLowerCase() === "frame-ancestors"),
    )
    .filter((d): d is string[] => d !== undefined);
  if (ancestors.length)
    return ancestors.every(([, ...sources]) => sources.some((s) => sourceMatches(s, frameOrigin, pageOrigin)))
      ? "allowed"
      : "refused";

  const xfo = (headers.get("x-frame-options") ?? "")
    .split(",")
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v === "deny" || v === "sameorigin");
  if (xfo.length === 0) return "allowed";
  // conflicting values count as DENY, as in Chromium
  if (xfo.includes("deny") || new Set(xfo).size > 1) return "refused";
  return frameOrigin === pageOrigin ? "allowed" : "refused";
}

/** One frame-ancestors source (CSP3 "matches a source expression") against the framing origin. */
function sourceMatches(source: string, frameOrigin: string, pageOrigin: string): boolean {
  const frame = new URL(frameOrigin);
  const s = source.toLowerCase();
  if (s === "'none'") return false;
  if (s === "'self'") return frameOrigin === pageOrigin;
  if (s === "*") return frame.protocol === "http:" || frame.protocol === "https:";
  // a scheme alone: http: also lets https in
  const schemeOnly = /^([a-z][a-z0-9+.-]*):$/.exec(s);
  if (schemeOnly) return schemeMatches(schemeOnly[1]!, frame.protocol.slice(0, -1));
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[a-z0-9.-]+)(?::(\d+|\*))?(?:\/.*)?$/.exec(s);
  if (!m) return false;
  const [, scheme, host, port] = m;
  const frameScheme = frame.protocol.slice(0, -1);
  if (!schemeMatches(scheme ?? new URL(pageOrigin).protocol.slice(0, -1), frameScheme)) return false;
  const hostOk =
    host === "*" || (host!.startsWith("*.") ? frame.hostname.endsWith(host!.slice(1)) : frame.hostname === host);
  if (!hostOk) return false;
  // no port: the framing URL's scheme's default (URL.port is then ""), as CSP3 says
  if (port === undefined) return frame.port === "";
  return port === "*" || (frame.port || (frameScheme === "https" ? "443" : "80")) === port;
}

const schemeMatches = (source: string, frame: string) => source === frame || (source === "http" && frame === "https");
