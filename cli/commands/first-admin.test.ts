import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cliHarness, startServeProcess } from "../../src/testing/cli";

const { dataDir, runJson, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
setDefaultTimeout(90_000);

/** What `serve` on DATADIR tells the operator on stderr, from start to a SIGTERM. */
async function serveBanner(): Promise<string> {
  const { proc, listening, stderr } = await startServeProcess(dataDir);
  // an answered request: the start-up is over, its banner written and SIGTERM handled
  expect((await fetch(`${listening.url}/healthz`)).status).toBe(200);
  proc.kill("SIGTERM");
  await proc.exited;
  return stderr;
}

describe("the first administrator", () => {
  test("serve on an empty data dir says how to make one, until there is one", async () => {
    const first = await serveBanner();
    expect(first).toContain("A new instance was initialised");
    expect(first).toContain(`No administrator yet. Register in the browser, then run: `);
    expect(first).toContain(`--data-dir ${dataDir} user grant-admin <username>`);
    expect(first).toContain("user create --email <e-mail> --username <username> --admin");

    const person = ["--email", "first@example.test", "--username", "first", "--password", "first password"];
    expect((await runJson("user", "create", ...person)).json.admin).toBe(false);
    expect((await runJson("user", "grant-admin", "first")).json).toEqual({
      username: "first",
      admin: true,
      changed: true,
    });
    expect(await serveBanner()).not.toContain("No administrator yet");
  });
});
