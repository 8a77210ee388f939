import type { LookupAddress } from "node:dns";
import ipaddr from "ipaddr.js";
import type { App } from "../app";

// node:net and node:dns load with their stream machinery (several MiB): required on first use,
// by webhook and file-URL checks, not by every start
const isIP = (input: string): number => (require("node:net") as typeof import("node:net")).isIP(input);
const lookup = (host: string, opts: { all: true }): Promise<LookupAddress[]> =>
  (require("node:dns/promises") as typeof import("node:dns/promises")).lookup(host, opts);

/**
 * Outbound requests on behalf of bots (webhooks, file URLs) must not reach the instance's
 * own network unless bot.allowPrivateWebhooks is on (bot development on localhost). Only
 * global unicast addresses are public: ipaddr.js names every special-purpose range, and
 * anything it does not call plain unicast is refused. That includes the IPv6 forms that embed
 * an IPv4 address (mapped ::ffff:0:0/96 in hex or dotted notation, SIIT, NAT64 64:ff9b::/96
 * and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32): a gateway or the kernel turns them
 * into the IPv4 address they carry, which may be loopback or private.
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  // node's isIP first: ipaddr.js also accepts classful shorthands ("127.1") that are not addresses here
  const version = isIP(bare);
  if (version === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(bare);
  } catch {
    return true;
  }
  if (addr.range() !== "unicast") return true;
  // IPv6 global unicast is 2000::/3; the rest (IPv4-compatible ::a.b.c.d, unassigned space) is not routable publicly
  if (addr.kind() === "ipv6") return ((addr as ipaddr.IPv6).parts[0]! & 0xe000) !== 0x2000;
  return false;
}

/**
 * The one answer for a refused or failed outbound fetch: telling "not public" from "connection
 * refused" from "timed out" would let a bot map the instance's network (an open/closed-port oracle).
 */
export const FETCH_FAILED = "failed to fetch the URL";

export const allowPrivate = (app: App): boolean => app.config["bot.allowPrivateWebhooks"];

/** Whether Web Push endpoints may be private (push.allowPrivateEndpoints), as allowPrivate is for bots' URLs. */
export const allowPrivatePush = (app: App): boolean => app.config["push.allowPrivateEndpoints"];

/** Whether link previews may read private addresses (links.allowPrivatePreviews), as allowPrivate is for bots' URLs. */
export const allowPrivatePreviews = (app: App): boolean => app.config["links.allowPrivatePreviews"];

/**
 * An outbound URL's shape: https (http too when private targets are allowed, or HTTPOK) and
 * no credentials. These reasons depend on the text alone, so they may be told to the bot.
 * PRIVATEOK: whether private targets are allowed (by default, bots' setting).
 */
export function urlShapeProblem(
  app: App,
  raw: string,
  privateOk = allowPrivate(app),
  httpOk = privateOk,
): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "invalid URL";
  }
  if (url.protocol !== "https:" && !(httpOk && url.protocol === "http:")) return "an HTTPS URL must be provided";
  if (url.username || url.password) return "URL must not contain credentials";
  return null;
}

/** The URL's host without brackets, lower case, without the trailing dot of a rooted name. */
const bareHost = (url: URL): string =>
  url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");

/** Names that never leave the machine or the site, whatever a resolver answers for them. */
const isLocalName = (host: string): boolean =>
  host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal");

/**
 * Checks an outbound URL without a network round trip: its shape, then no private literal
 * address and no local name. Returns a reason or null.
 */
export function outboundUrlProblem(
  app: App,
  raw: string,
  privateOk = allowPrivate(app),
  httpOk = privateOk,
): string | null {
  const shape = urlShapeProblem(app, raw, privateOk, httpOk);
  if (shape || privateOk) return shape;
  const host = bareHost(new URL(raw));
  if (isIP(host)) return isPrivateAddress(host) ? "IP address is not public" : null;
  return isLocalName(host) ? "URL host is not public" : null;
}

/** How long setWebhook waits for a name to resolve before leaving the check to delivery. */
const SET_TIME_LOOKUP_MS = 3_000;

/**
 * outboundUrlProblem, then the host name resolved: a name that resolves to a private address
 * is refused when the webhook is set, not only at each delivery. A name that does not resolve
 * (yet) is accepted: delivery resolves it again before every connection.
 */
export async function webhookUrlProblem(app: App, raw: string): Promise<string | null> {
  const problem = outboundUrlProblem(app, raw);
  if (problem || allowPrivate(app)) return problem;
  const host = bareHost(new URL(raw));
  if (isIP(host)) return null;
  const timeout = new Promise<null>((resolve) => setTimeout(resolve, SET_TIME_LOOKUP_MS, null).unref?.());
  const found = await Promise.race([lookup(host, { all: true }).catch(() => null), timeout]);
  return found && found.some((a) => isPrivateAddress(a.address)) ? "URL host is not public" : null;
}

/**
 * Resolves the URL's host right before connecting and refuses private addresses (with
 * FETCH_FAILED, like every other outbound failure). Returns the checked address to connect
 * to, or null when no check applies (a public IP literal, or private targets allowed).
 */
export async function checkedAddress(app: App, url: URL, privateOk = allowPrivate(app)): Promise<string | null> {
  if (privateOk) return null;
  const host = bareHost(url);
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new Error(FETCH_FAILED);
    return null;
  }
  if (isLocalName(host)) throw new Error(FETCH_FAILED);
  const addresses = (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw new Error(FETCH_FAILED);
  return addresses[0]!;
}

/**
 * fetch() connecting to ADDRESS instead of resolving URL's host again: a name that answers a
 * public address to the check and a private one to the connection (DNS rebinding) cannot
 * slip through. The Host header and the TLS server name (SNI and certificate check) stay
 * those of the URL.
 */
export function fetchAt(
  url: URL,
  address: string | null,
  init: RequestInit & { tls?: Record<string, unknown> } = {},
): Promise<Response> {
  if (address === null) return fetch(url, init);
  const pinned = new URL(url);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  return fetch(pinned, { ...init, headers, tls: { ...init.tls, serverName: url.hostname } } as RequestInit);
}

/**
 * fetch() of a bot-supplied URL, refused when its host is private, pinned to the checked
 * address. Every failure (refused, unreachable, TLS, timeout) rejects with FETCH_FAILED; the
 * real cause goes to ON_CAUSE for the log.
 */
export async function fetchPublic(
  app: App,
  url: URL,
  init: RequestInit & { tls?: Record<string, unknown> },
  onCause?: (cause: string) => void,
  privateOk = allowPrivate(app),
): Promise<Response> {
  try {
    return await fetchAt(url, await checkedAddress(app, url, privateOk), init);
  } catch (err) {
    onCause?.((err as Error).message ?? String(err));
    throw new Error(FETCH_FAILED);
  }
}

/**
 * A GET of a bot-supplied URL, redirects followed by hand so each hop is checked again; the
 * final response (not a redirect) and its URL. A URL of the wrong shape rejects with its
 * reason; every other failure (refused address, network, time, redirects) with FETCH_FAILED.
 * TLS is for tests that waive the certificate check; PRIVATEOK and HTTPOK as for
 * outboundUrlProblem (by default, bots' setting); HEADERS go with every hop.
 */
export async function fetchFollowing(
  app: App,
  raw: string,
  opts: {
    signal: AbortSignal;
    tls?: Record<string, unknown>;
    onCause?: (cause: string) => void;
    privateOk?: boolean;
    httpOk?: boolean;
    headers?: Record<string, string>;
  },
): Promise<{ res: Response; url: URL }> {
  const privateOk = opts.privateOk ?? allowPrivate(app);
  const httpOk = opts.httpOk ?? privateOk;
  const shape = urlShapeProblem(app, raw, privateOk, httpOk);
  if (shape) throw new Error(shape);
  let current = raw;
  for (let hop = 0; hop < 4; hop++) {
    const problem = outboundUrlProblem(app, current, privateOk, httpOk);
    if (problem) {
      opts.onCause?.(problem);
      throw new Error(FETCH_FAILED);
    }
    const url = new URL(current);
    const res = await fetchPublic(
      app,
      url,
      { redirect: "manual", signal: opts.signal, tls: opts.tls, headers: opts.headers },
      opts.onCause,
      privateOk,
    );
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      current = new URL(res.headers.get("location")!, url).toString();
      await res.body?.cancel();
      continue;
    }
    return { res, url };
  }
  opts.onCause?.("too many redirects");
  throw new Error(FETCH_FAILED);
}

/**
 * Downloads a file from a bot-supplied URL with a size cap and a time limit (fetchFollowing);
 * a failing HTTP status or a body over the cap rejects with FETCH_FAILED too.
 */
export async function fetchLimited(
  app: App,
  raw: string,
  maxBytes: number,
  timeoutMs = 15_000,
  tls?: Record<string, unknown>,
  onCause?: (cause: string) => void,
): Promise<{ data: Uint8Array; mime: string | null; name: string }> {
  const fail = (cause: string) => {
    onCause?.(cause);
    return new Error(FETCH_FAILED);
  };
  const { res, url } = await fetchFollowing(app, raw, { signal: AbortSignal.timeout(timeoutMs), tls, onCause });
  if (!res.ok) throw fail(`HTTP ${res.status}`);
  const data = await readLimited(res, maxBytes).catch(() => null);
  if (!data) throw fail("file is too big or unreadable");
  const last = url.pathname.split("/").pop() || "file";
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // a malformed %-escape: the name stays as written
  }
  return { data, mime: res.headers.get("content-type")?.split(";")[0]?.trim() ?? null, name };
}

/** A response body of at most MAX bytes (by Content-Length and as it streams), else null. */
export async function readLimited(res: Response, max: number): Promise<Uint8Array | null> {
  if (Number(res.headers.get("content-length") ?? "0") > max) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
