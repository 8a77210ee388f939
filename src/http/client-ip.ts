import type { Server } from "bun";

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
