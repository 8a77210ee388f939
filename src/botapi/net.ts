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
 * Resolves the URL's host right before connecting and refuses private addresses, so a
 * public name that later points inside the network is caught at delivery time.
 */
export async function assertPublicTarget(app: App, url: URL): Promise<void> {
  if (allowPrivate(app)) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw new Error("target address is not public");
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
    await assertPublicTarget(app, url);
    const res = await fetch(url, { redirect: "manual", signal: deadline });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      current = new URL(res.headers.get("location")!, url).toString();
      await res.body?.cancel();
      continue;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > maxBytes) {
      await res.body?.cancel();
      throw new Error("file is too big");
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new Error("file is too big");
      }
      chunks.push(value);
    }
    const data = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.byteLength;
    }
    const name = decodeURIComponent(url.pathname.split("/").pop() || "file");
    return { data, mime: res.headers.get("content-type")?.split(";")[0]?.trim() ?? null, name };
  }
  throw new Error("too many redirects");
}
