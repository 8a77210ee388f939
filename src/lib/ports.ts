/** A loopback port nothing listens on right now (for servers that need a concrete port before they listen). */
export function freeLoopbackPort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}
