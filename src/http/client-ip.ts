import type { Server } from "bun";

/**
 * The caller's address. Behind a reverse proxy (config trustProxy) the left-most
 * X-Forwarded-For entry, which the proxy appends; otherwise the socket's peer.
 */
export function clientIp(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = request.headers.get("x-forwarded-for");
    if (fwd) return fwd.split(",")[0]!.trim();
    const real = request.headers.get("x-real-ip");
    if (real) return real.trim();
  }
  return server?.requestIP(request)?.address ?? "local";
}
