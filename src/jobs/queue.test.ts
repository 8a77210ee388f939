import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../testing/server";
import { testsOnPostgres } from "../testing/engine";
import { waitFor } from "../testing/wait";
import { inTransaction } from "../db/transaction";
import { PermanentJobError, enqueueJob, registerJobHandler, retryDelayMs, type JsonValue } from "./queue";
import { claimJobs } from "./worker";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

let kinds = 0;
/** A handler of a kind of its own on the test server, recording each call; FAIL decides per attempt whether it throws. */
function recordingHandler(
  opts: { fail?: (attempt: number) => Error | null; maxAttempts?: number; backoffMs?: number } = {},
) {
  const kind = `test-kind-${++kinds}`;
  const calls: Array<{ payload: JsonValue; attempt: number; jobId: number }> = [];
  registerJobHandler(server.app, {
    kind,
    maxAttempts: opts.maxAttempts,
    backoffMs: opts.backoffMs ?? 20,
    async handle(payload, ctx) {
      calls.push({ payload, attempt: ctx.attempt, jobId: ctx.jobId });
      const err = opts.fail?.(ctx.attempt);
      if (err) throw err;
    },
  });
  return { kind, calls };
}

const enqueue = (kind: string, payload: JsonValue, options?: { delayMs?: number; key?: string }) =>
  inTransaction(server.app.storage, (scope) => enqueueJob(scope, kind, payload, options));

const jobRow = (id: number) =>
  server.app.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("the job queue", () => {
  test("a job enqueued in a committed transaction runs once with its payload, and is done", async () => {
    const { kind, calls } = recordingHandler();
    const id = (await enqueue(kind, { to: "a@example.test", n: [1, 2] }))!;
    await waitFor(() => calls.length === 1, 5000, "the job to run");
    expect(calls[0]).toEqual({ payload: { to: "a@example.test", n: [1, 2] }, attempt: 1, jobId: id });
    const row = await waitFor(async () => {
      const r = await jobRow(id);
      return r.state === "done" && r;
    });
    // the payload does not outlive the job
    expect(row.payload).toBeNull();
    await Bun.sleep(300);
    expect(calls).toHaveLength(1);
  });

  test("a job enqueued in a transaction that rolls back does not exist", async () => {
    const { kind, calls } = recordingHandler();
    await expect(
      inTransaction(server.app.storage, async (scope) => {
        await enqueueJob(scope, kind, "lost");
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    await Bun.sleep(300);
    expect(calls).toHaveLength(0);
    expect(await server.app.db.selectFrom("jobs").select("id").where("kind", "=", kind).execute()).toEqual([]);
  });

  test("a second job of the same kind and key is not queued while the first waits; after it ran, it is", async () => {
    const { kind, calls } = recordingHandler();
    const first = await enqueue(kind, 1, { key: "user-7", delayMs: 400 });
    expect(first).toBeNumber();
    expect(await enqueue(kind, 2, { key: "user-7" })).toBe(first);
    expect(await enqueue(kind, 3, { key: "user-8" })).toBeNumber();
    await waitFor(() => calls.length === 2, 5000, "both keys' jobs");
    expect(calls.map((c) => c.payload).sort()).toEqual([1, 3]);
    expect(await enqueue(kind, 4, { key: "user-7" })).toBeNumber();
    await waitFor(() => calls.length === 3, 5000, "the key's next job");
  });

  test.skipIf(!testsOnPostgres())(
    "a queued job that stands for one of an open transaction is not claimed until that transaction ends",
    async () => {
      const kind = `unhandled-standing-${Date.now()}`;
      const queued = await enqueue(kind, "first", { key: "chat-1" });
      let claimedMeanwhile: unknown[] = [];
      await inTransaction(server.app.storage, async (scope) => {
        expect(await enqueueJob(scope, kind, "second", { key: "chat-1" })).toBe(queued);
        // another connection's claim, as a node's worker would make it while the change is open
        claimedMeanwhile = await claimJobs(server.app.db, [kind], 10, Date.now());
      });
      expect(claimedMeanwhile).toEqual([]);
      expect((await claimJobs(server.app.db, [kind], 10, Date.now())).map((j) => j.id)).toEqual([queued]);
    },
  );

  test.skipIf(!testsOnPostgres())(
    "a due job locked by a transaction that joined it runs once that commits, and the worker does not ask in a loop meanwhile",
    async () => {
      const { kind, calls } = recordingHandler();
      await enqueue(kind, "first", { key: "k", delayMs: 100 });
      let statements = 0;
      await inTransaction(server.app.storage, async (scope) => {
        await enqueueJob(scope, kind, "second", { key: "k" });
        const before = server.app.storage.statements();
        // the job falls due while this transaction holds it
        await Bun.sleep(500);
        statements = server.app.storage.statements() - before;
        expect(calls).toEqual([]);
      });
      await waitFor(() => calls.length === 1, 5000, "the job to run after the commit");
      expect(calls[0]!.payload).toBe("first");
      // a claim and a next-due read every LOCKED_POLL_MS, not one after another
      expect(statements).toBeLessThan(60);
    },
  );

  test("a delayed job waits its delay", async () => {
    const { kind, calls } = recordingHandler();
    const t0 = Date.now();
    await enqueue(kind, null, { delayMs: 600 });
    await waitFor(() => calls.length === 1, 5000, "the delayed job");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
  });

  test("a failing job is retried after a backoff until it succeeds", async () => {
    const { kind, calls } = recordingHandler({ fail: (attempt) => (attempt < 3 ? new Error(`try ${attempt}`) : null) });
    const id = (await enqueue(kind, "retry me"))!;
    await waitFor(() => calls.length === 3, 5000, "three attempts");
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    const row = await waitFor(async () => {
      const r = await jobRow(id);
      return r.state === "done" && r;
    });
    expect(row.attempts).toBe(3);
  });

  test("a job is dead after its last attempt, and at once for a PermanentJobError", async () => {
    const always = recordingHandler({ fail: (attempt) => new Error(`smtp down ${attempt}`), maxAttempts: 3 });
    const id = (await enqueue(always.kind, "x"))!;
    const dead = await waitFor(async () => {
      const r = await jobRow(id);
      return r.state === "dead" && r;
    });
    expect(always.calls).toHaveLength(3);
    expect(dead.attempts).toBe(3);
    expect(dead.last_error).toBe("smtp down 3");
    // a dead job keeps its payload, for an operator's retry
    expect(JSON.parse(dead.payload!)).toBe("x");

    const refused = recordingHandler({ fail: () => new PermanentJobError("550 no such mailbox") });
    const id2 = (await enqueue(refused.kind, "y"))!;
    const dead2 = await waitFor(async () => {
      const r = await jobRow(id2);
      return r.state === "dead" && r;
    });
    expect(refused.calls).toHaveLength(1);
    expect(dead2.last_error).toBe("550 no such mailbox");
  });

  test("a job claimed by a node that died runs again once its lease has run out", async () => {
    const { kind, calls } = recordingHandler();
    const now = Date.now();
    // as another node left it: claimed (one attempt counted), its lease ending shortly
    const { id } = await server.app.db
      .insertInto("jobs")
      .values({
        kind,
        key: null,
        payload: JSON.stringify("orphan"),
        state: "running",
        attempts: 1,
        run_at: now,
        lease_token: "the-dead-node",
        lease_until: now + 500,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await Bun.sleep(200);
    expect(calls).toHaveLength(0);
    await waitFor(() => calls.length === 1, 5000, "the orphaned job to run again");
    expect(calls[0]).toEqual({ payload: "orphan", attempt: 2, jobId: id });
    await waitFor(async () => (await jobRow(id)).state === "done");
  });

  test("a claim takes only due jobs of the kinds asked for, and never one twice", async () => {
    const kind = `unhandled-${Date.now()}`;
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await enqueue(kind, i));
    await enqueue(kind, "later", { delayMs: 60_000 });
    const now = Date.now();
    const [a, b] = await Promise.all([
      claimJobs(server.app.db, [kind], 2, now),
      claimJobs(server.app.db, [kind], 2, now),
    ]);
    const claimed = [...a, ...b].map((j) => j.id).sort((x, y) => x - y);
    expect(claimed).toEqual(ids as number[]);
    expect([...a, ...b].every((j) => j.state === "running" && j.attempts === 1)).toBe(true);
    expect(await claimJobs(server.app.db, [kind], 10, now)).toEqual([]);
  });

  test("a claim takes at most its limit, whatever the claim before it asked for", async () => {
    const kind = `unhandled-limit-${Date.now()}`;
    for (let i = 0; i < 6; i++) await enqueue(kind, i);
    const now = Date.now();
    expect(await claimJobs(server.app.db, [kind], 1, now)).toHaveLength(1);
    expect(await claimJobs(server.app.db, [kind], 3, now)).toHaveLength(3);
    expect(await claimJobs(server.app.db, [kind], 1, now)).toHaveLength(1);
    expect(await claimJobs(server.app.db, [kind], 4, now)).toHaveLength(1);
  });
});

test("retries back off exponentially up to a cap, with jitter between half and all of the delay", () => {
  expect(retryDelayMs(1000, 1, () => 1)).toBe(1000);
  expect(retryDelayMs(1000, 4, () => 1)).toBe(8000);
  expect(retryDelayMs(1000, 4, () => 0)).toBe(4000);
  expect(retryDelayMs(1000, 40, () => 1)).toBe(3600_000);
});
