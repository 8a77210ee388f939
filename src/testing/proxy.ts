/**
 * A reverse proxy on a loopback port in front of several nodes, as a load balancer with passive
 * health checks behaves: every request goes to the first node not marked down; a node whose
 * connection fails (refused, or reset mid-request as when it is killed) is marked down and the
 * request is answered 502, not retried (a POST may have been acted on), so the client retries.
 */
export interface FailoverProxy {
  readonly url: string;
  /** The node requests go to now. */
  current(): string;
  /** Requests that got a 502 because their node failed. */
  failures(): number;
  stop(): void;
}

export function startFailoverProxy(upstreams: string[]): FailoverProxy {
  const down = new Set<string>();
  let failed = 0;
  const current = () => upstreams.find((u) => !down.has(u)) ?? upstreams[0]!;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // a parked getUpdates may wait longer than Bun's default idle timeout
    idleTimeout: 0,
    async fetch(req) {
      const target = current();
      const incoming = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.delete("host");
      try {
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
        const res = await fetch(`${target}${incoming.pathname}${incoming.search}`, {
          method: req.method,
          headers,
          body,
          redirect: "manual",
        });
        const out = new Headers(res.headers);
        // the body is handed on decoded
        out.delete("content-encoding");
        out.delete("content-length");
        return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
      } catch {
        down.add(target);
        failed++;
        return new Response("bad gateway", { status: 502 });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    current,
    failures: () => failed,
    stop: () => void server.stop(true),
  };
}
