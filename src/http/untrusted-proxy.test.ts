import { afterEach, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { runCli } from "../testing/cli";
import type { Logger } from "../lib/log";
import { UNTRUSTED_PROXY_WARNING } from "./untrusted-proxy";

/** A logger that keeps its warnings. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const doctorFinding = async (dataDir: string) => {
  const r = await runCli(["--json", "--data-dir", dataDir, "doctor"]);
  return (r.json.checks as Array<{ name: string; status: string; detail: string; fix?: string }>).find(
    (c) => c.name === "reverse proxy",
  );
};

describe("a proxy the server does not trust", () => {
  test("requests with X-Forwarded-For while trustProxy is off: the log warns once, doctor names the node", async () => {
    const log = recordingLogger();
    server = await startTestServer({}, { log });
    expect(await doctorFinding(server.dataDir)).toMatchObject({ status: "ok" });
    for (let i = 0; i < 3; i++)
      expect(
        (await fetch(`${server.url}/api/instance`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status,
      ).toBe(200);
    expect(log.warnings.filter((w) => w === UNTRUSTED_PROXY_WARNING)).toHaveLength(1);
    // the node's record is written on the warning, not at the next heartbeat
    let finding;
    for (let i = 0; i < 50; i++) {
      finding = await doctorFinding(server.dataDir);
      if (finding?.status === "warn") break;
      await Bun.sleep(100);
    }
    expect(finding).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("X-Forwarded-For"),
      fix: expect.stringContaining("trustProxy true"),
    });
  });

  test("with trustProxy on, or without the header, nothing is said", async () => {
    const log = recordingLogger();
    server = await startTestServer({ trustProxy: true }, { log });
    await fetch(`${server.url}/api/instance`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    await fetch(`${server.url}/api/instance`);
    expect(log.warnings).not.toContain(UNTRUSTED_PROXY_WARNING);
    expect(await doctorFinding(server.dataDir)).toMatchObject({ status: "ok" });
  });
});
