import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine makes them slow
setDefaultTimeout(120_000);

/** Two mails dead after their last attempt and one done, as a serving node would have left them. */
async function seedJobs(): Promise<number[]> {
  const app = await openApp({ dataDir, log: silentLogger });
  try {
    const now = Date.now();
    const row = (state: "dead" | "done", i: number) => ({
      kind: "mail",
      key: null,
      payload: state === "dead" ? JSON.stringify({ to: `p${i}@example.test`, subject: "s", text: "t" }) : null,
      state,
      attempts: state === "dead" ? 11 : 1,
      run_at: now - 1000 * i,
      lease_token: null,
      lease_until: null,
      last_error: state === "dead" ? "connect ECONNREFUSED 127.0.0.1:2525" : null,
      created_at: now - 1000 * i,
      updated_at: now - 1000 * i,
    });
    const rows = await app.db
      .insertInto("jobs")
      .values([row("dead", 2), row("dead", 1), row("done", 3)])
      .returning("id")
      .execute();
    return rows.map((r) => r.id);
  } finally {
    await app.close();
  }
}

describe("socialctl jobs", () => {
  test("list shows dead jobs and counts; status shows them; retry queues one again, drop deletes one", async () => {
    await runJson("init", "--yes");
    expect((await run("jobs", "list")).stdout.trim()).toBe("the queue is empty\nNo dead jobs.");
    const [older, newer, done] = await seedJobs();

    const listed = (await runJson("jobs", "list")).json;
    expect(listed.jobs.map((j: any) => j.id)).toEqual([newer, older]);
    expect(listed.counts).toEqual([
      { kind: "mail", state: "dead", count: 2 },
      { kind: "mail", state: "done", count: 1 },
    ]);
    // an operator's listing never shows a mail's text (its link or code)
    expect(JSON.stringify(listed)).not.toContain("example.test");
    const text = (await run("jobs", "list")).stdout;
    expect(text).toContain("mail dead 2, mail done 1");
    expect(text).toContain(`${newer}  mail  dead, 11 attempts`);
    expect(text).toContain("connect ECONNREFUSED");
    expect((await runJson("jobs", "list", "--state", "all")).json.jobs.map((j: any) => j.id)).toEqual([
      newer,
      older,
      done,
    ]);

    const status = (await runJson("status")).json;
    expect(status.jobs.counts).toContainEqual({ kind: "mail", state: "dead", count: 2 });
    expect(status.jobs.dead.map((j: any) => j.id)).toEqual([newer, older]);
    const statusText = (await run("status")).stdout;
    expect(statusText).toContain("jobs: queued 0, running 0, done 1 (mail 1), dead 2 (mail 2)");
    expect(statusText).toContain(`  ${newer} mail, 11 attempts`);

    expect((await runJson("jobs", "retry", String(older))).json).toEqual({ id: older, outcome: "retried" });
    expect((await runJson("jobs", "drop", String(newer))).json).toEqual({ id: newer, dropped: true });
    const after = (await runJson("jobs", "list", "--state", "queued")).json;
    expect(after.jobs).toEqual([expect.objectContaining({ id: older, state: "queued", attempts: 0 })]);
    expect((await runJson("jobs", "list")).json.jobs).toEqual([]);
  });

  test("retry and drop of a job that is not dead, bad ids and states are one-line errors", async () => {
    await expectOneLineFailure(run("jobs", "retry", "999999"), /no dead job 999999/);
    await expectOneLineFailure(run("jobs", "drop", "999999"), /no dead job 999999/);
    await expectOneLineFailure(run("jobs", "drop", "x1"), /job id must be a number/);
    await expectOneLineFailure(run("jobs", "list", "--state", "lost"), /--state must be one of/);
  });
});
