import { readFileSync } from "node:fs";
import { join } from "node:path";

// a self-signed certificate for the name hook.test, then its key
const pem = readFileSync(join(import.meta.dir, "../botapi/fixtures/hook-test-tls.pem"), "utf8");
const split = pem.indexOf("-----BEGIN PRIVATE KEY-----");

/** The test certificate (self-signed, for hook.test) and its key, as Bun.serve's `tls` takes them. */
export const TEST_TLS = { cert: pem.slice(0, split), key: pem.slice(split) };

/** An HTTPS server on a free loopback port with the test certificate (stop it with `stop(true)`). */
export function serveHttps(fetch: (req: Request) => Response | Promise<Response>) {
  return Bun.serve({ hostname: "127.0.0.1", port: 0, tls: TEST_TLS, fetch });
}
