import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { App } from "../app";

/**
 * Outbound requests on behalf of bots (webhooks, file URLs) must not reach the instance's
 * own network: loopback, private, link-local, CGNAT, multicast and unspecified addresses are
 * refused unless bot.allowPrivateWebhooks is on (bot development on localhost).
 */
export function isPrivateAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return isPrivateV4(ip);
  if (v === 6) {
    const lower = ip.toLowerCase().replace(/^\[|\]$/g, "");
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isPrivateV4(mapped[1]!);
    if (lower === "::" || lower === "::1") return true;
    const first = parseInt(lower.split(":")[0] || "0", 16);
    if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
    if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
    if ((first & 0xff00) === 0xff00) return true; // multicast
    return false;
  }
  return true;
}

function isPrivateV4(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

export const allowPrivate = (app: App): boolean => app.config["bot.allowPrivateWebhooks"];

/**
 * Checks an outbound URL's shape: https (http too when private targets are allowed), no
 * credentials, and no private literal address or localhost name. Returns a reason or null.
 */
export function outboundUrlProblem(app: App, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "invalid URL";
  }
  const privateOk = allowPrivate(app);
  if (url.protocol !== "https:" && !(privateOk && url.protocol === "http:")) return "an HTTPS URL must be provided";
  if (url.username || url.password) return "URL must not contain credentials";
  if (privateOk) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) return "URL host is not public";
  if (isIP(host) && isPrivateAddress(host)) return "IP address is not public";
  return null;
}

/**
 * Resolves the URL's host right before connecting and refuses private addresses. Returns the
 * checked address to connect to, or null when no check applies (an IP literal, or private
 * targets allowed).
 */
export async function checkedAddress(app: App, url: URL): Promise<string | null> {
  if (allowPrivate(app)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new Error("target address is not public");
    return null;
  }
  const addresses = (await lookup(host, { all: true })).map((a) => a.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw new Error("target address is not public");
  return addresses[0]!;
}

/**
 * fetch() connecting to ADDRESS instead of resolving URL's host again: a name that answers a
 * public address to the check and a private one to the connection (DNS rebinding) cannot
 * slip through. The Host header and the TLS server name (SNI and certificate check) stay
 * those of the URL.
 */
export function fetchAt(url: URL, address: string | null, init: RequestInit & { tls?: Record<string, unknown> } = {}): Promise<Response> {
  if (address === null) return fetch(url, init);
  const pinned = new URL(url);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  return fetch(pinned, { ...init, headers, tls: { ...init.tls, serverName: url.hostname } } as RequestInit);
}

/** fetch() of a bot-supplied URL, refused when its host is private, pinned to the checked address. */
export async function fetchPublic(app: App, url: URL, init: RequestInit): Promise<Response> {
  return fetchAt(url, await checkedAddress(app, url), init);
}

/**
 * Downloads a file from a bot-supplied URL with a size cap and a time limit; redirects are
 * followed by hand so each hop is checked again.
 */
export async function fetchLimited(app: App, raw: string, maxBytes: number, timeoutMs = 15_000): Promise<{ data: Uint8Array; mime: string | null; name: string }> {
  let current = raw;
  const deadline = AbortSignal.timeout(timeoutMs);
  for (let hop = 0; hop < 4; hop++) {
    const problem = outboundUrlProblem(app, current);
    if (problem) throw new Error(problem);
    const url = new URL(current);
    const res = await fetchPublic(app, url, { redirect: "manual", signal: deadline });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      current = new URL(res.headers.get("location")!, url).toString();
      await res.body?.cancel();
      continue;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const data = await readLimited(res, maxBytes);
    if (!data) throw new Error("file is too big");
    const name = decodeURIComponent(url.pathname.split("/").pop() || "file");
    return { data, mime: res.headers.get("content-type")?.split(";")[0]?.trim() ?? null, name };
  }
  throw new Error("too many redirects");
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
