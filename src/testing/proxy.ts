/**
 * A reverse proxy on a loopback port in front of several nodes, as a load balancer with passive
 * health checks behaves: every request goes to the first node not marked down; a node whose
 * connection fails (refused, or reset mid-request as when it is killed) is marked down and the
 * request is answered 502, not retried (a POST may have been acted on), so the client retries.
 *
 * With OPTS.health it also probes each node as Caddy's active health checks do (`health_uri`,
 * `health_interval`, `health_timeout`): a node is down while its probe does not answer 200 in
 * time, up again once it does. With OPTS.responseTimeoutMs a request whose node has not
 * answered by then is answered 504 (a proxy's read timeout), not waited on forever.
 */
export interface FailoverProxy {
  readonly url: string;
  /** The node requests go to now. */
  current(): string;
  /** Requests that got a 502 because their node failed. */
  failures(): number;
  /** Requests that got a 504 because their node did not answer in time. */
  timeouts(): number;
  stop(): void;
}

export interface ProxyOptions {
  health?: { uri: string; intervalMs: number; timeoutMs: number };
  responseTimeoutMs?: number;
}

export function startFailoverProxy(upstreams: string[], opts: ProxyOptions = {}): FailoverProxy {
  const down = new Set<string>();
  let failed = 0;
  let timedOut = 0;
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
      const timeout = opts.responseTimeoutMs;
      try {
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
        const res = await fetch(`${target}${incoming.pathname}${incoming.search}`, {
          method: req.method,
          headers,
          body,
          redirect: "manual",
          signal: timeout === undefined ? undefined : AbortSignal.timeout(timeout),
        });
        const out = new Headers(res.headers);
        // the body is handed on decoded
        out.delete("content-encoding");
        out.delete("content-length");
        return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
      } catch (err) {
        if ((err as Error).name === "TimeoutError") {
          timedOut++;
          return new Response("gateway timeout", { status: 504 });
        }
        down.add(target);
        failed++;
        return new Response("bad gateway", { status: 502 });
      }
    },
  });
  const health = opts.health;
  let probing: ReturnType<typeof setInterval> | null = null;
  if (health) {
    const inFlight = new Set<string>();
    const probe = async (upstream: string) => {
      if (inFlight.has(upstream)) return;
      inFlight.add(upstream);
      try {
        const res = await fetch(`${upstream}${health.uri}`, { signal: AbortSignal.timeout(health.timeoutMs) });
        if (res.status === 200) down.delete(upstream);
        else down.add(upstream);
      } catch {
        down.add(upstream);
      } finally {
        inFlight.delete(upstream);
      }
    };
    probing = setInterval(() => upstreams.forEach((u) => void probe(u)), health.intervalMs);
  }
  return {
    url: `http://127.0.0.1:${server.port}`,
    current,
    failures: () => failed,
    timeouts: () => timedOut,
    stop: () => {
      if (probing) clearInterval(probing);
      void server.stop(true);
    },
  };
}
