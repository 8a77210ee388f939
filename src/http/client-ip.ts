import type { Server } from "bun";
import ipaddr from "ipaddr.js";

/**
 * The caller's address. Behind a reverse proxy (config trustProxy) the right-most
 * X-Forwarded-For entry: the one our proxy appended. Entries left of it come from the
 * client and can be forged, so trusting them would let anyone dodge the per-IP limits.
 * Otherwise the socket's peer.
 */
export function clientIp(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = request.headers.get("x-forwarded-for");
    const last = fwd?.split(",").at(-1)?.trim();
    if (last) return last;
    const real = request.headers.get("x-real-ip")?.trim();
    if (real) return real;
  }
  return server?.requestIP(request)?.address ?? "local";
}

const DOTTED_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * What a client address counts as in every per-address limit: an IPv4 address itself (an
 * IPv4-mapped IPv6 address, as a dual-stack listener sees IPv4 clients, as that IPv4 address),
 * an IPv6 address its /64. One IPv6 subscriber is given a whole /64 and may use any address in
 * it, so counting single addresses would hand one attacker 2^64 budgets. Anything that is not
 * an address (no socket, an odd proxy header) counts as itself.
 */
export function rateLimitKey(address: string): string {
  // every Client API request asks: a plain IPv4 address, the common case, skips the parser
  if (DOTTED_IPV4.test(address)) return address;
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return address;
  const addr = ipaddr.process(bare);
  if (addr.kind() === "ipv4") return addr.toString();
  const network = [...(addr as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0];
  return `${new ipaddr.IPv6(network).toString()}/64`;
}
