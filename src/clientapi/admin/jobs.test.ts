import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { adminWorld, auditEntries, expectError, type AdminWorld } from "../../testing/admin";
import { waitFor } from "../../testing/wait";
import { inTransaction } from "../../db/transaction";
import { PermanentJobError, enqueueJob, registerJobHandler } from "../../jobs/queue";

// a server on PostgreSQL starts slowly on a loaded machine
setDefaultTimeout(60_000);

let world: AdminWorld;
/** whether the test handler refuses its jobs for good (dead at once) or carries them out */
let refusing = true;
const carried: unknown[] = [];

beforeAll(async () => {
  world = await adminWorld({ "metrics.enabled": true, "metrics.token": "scrape-secret" });
  registerJobHandler(world.server.app, {
    kind: "admin-test",
    async handle(payload) {
      if (refusing) throw new PermanentJobError("the far end refused it");
      carried.push(payload);
    },
  });
});
afterAll(() => world.server.stop());

const enqueue = (payload: string, key?: string) =>
  inTransaction(world.server.app.storage, (scope) => enqueueJob(scope, "admin-test", payload, { key }));

async function deadJob(payload: string): Promise<number> {
  const id = (await enqueue(payload))!;
  await waitFor(
    async () =>
      (await world.server.app.db.selectFrom("jobs").select("state").where("id", "=", id).executeTakeFirst())?.state ===
      "dead",
    5000,
    "the job to be dead",
  );
  return id;
}

async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${world.server.url}/metrics`, { headers: { authorization: "Bearer scrape-secret" } });
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(await res.text()).find((f) => f.name === "social_jobs")!;
  return new Map(
    family.metrics.map((m: any) => [`${m.labels.kind}/${m.labels.state}`, Number(m.value)] as [string, number]),
  );
}

describe("the job queue in the admin area", () => {
  test("a dead job shows in the list, the status and /metrics; retried, it runs; dropped, it is gone", async () => {
    refusing = true;
    const first = await deadJob("first");
    const second = await deadJob("second");

    const listed = await world.admin.get("/api/admin/jobs?state=dead&kind=admin-test");
    expect(listed.status).toBe(200);
    expect(listed.body.data.jobs.map((j: any) => j.id)).toEqual([second, first]);
    expect(listed.body.data.jobs[0]).toMatchObject({
      kind: "admin-test",
      state: "dead",
      attempts: 1,
      lastError: "the far end refused it",
      key: null,
    });
    // never the payload: a mail's holds a reset link
    expect(JSON.stringify(listed.body.data)).not.toContain("second");
    expect(listed.body.data.counts).toContainEqual({ kind: "admin-test", state: "dead", count: 2 });

    const statusRes = await world.admin.get("/api/admin/status");
    expect(statusRes.body).toMatchObject({ success: true });
    const status = statusRes.body.data.status;
    expect(status.jobs.counts).toContainEqual({ kind: "admin-test", state: "dead", count: 2 });
    expect(status.jobs.dead.map((j: any) => j.id)).toEqual([second, first]);

    let gauges = await scrape();
    expect(gauges.get("admin-test/dead")).toBe(2);
    expect(gauges.get("admin-test/queued")).toBe(0);
    // the kinds this node handles show with zeros too
    expect(gauges.get("mail/dead")).toBe(0);

    refusing = false;
    const retried = await world.admin.post(`/api/admin/jobs/${first}/retry`, {});
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual({ outcome: "retried" });
    await waitFor(() => carried.includes("first"), 5000, "the retried job to run");

    const dropped = await world.admin.delete(`/api/admin/jobs/${second}`);
    expect(dropped.status).toBe(200);
    expect(dropped.body.data).toEqual({ dropped: true });
    expect((await world.admin.get("/api/admin/jobs?state=dead&kind=admin-test")).body.data.jobs).toEqual([]);
    gauges = await scrape();
    expect(gauges.get("admin-test/dead")).toBe(0);
    expect(carried).not.toContain("second");

    const audit = await auditEntries(world.admin, 5);
    expect(audit.map((e: any) => [e.action, e.target.id])).toEqual(
      expect.arrayContaining([
        ["job.retry", String(first)],
        ["job.drop", String(second)],
      ]),
    );
  });

  test("retry and drop take dead jobs only; a retry whose key is queued again is superseded", async () => {
    refusing = true;
    const id = await deadJob("once");
    expectError(await world.admin.post(`/api/admin/jobs/999999/retry`, {}), 404, "NOT_FOUND");
    expectError(await world.admin.delete(`/api/admin/jobs/999999`), 404, "NOT_FOUND");
    expectError(await world.admin.post(`/api/admin/jobs/abc/retry`, {}), 422, "VALIDATION_ERROR");
    // queued (not dead) jobs are the worker's
    const later = (await inTransaction(world.server.app.storage, (scope) =>
      enqueueJob(scope, "admin-test", "later", { delayMs: 60_000, key: "k" }),
    ))!;
    expectError(await world.admin.delete(`/api/admin/jobs/${later}`), 404, "NOT_FOUND");
    // a dead job of key k while another of key k waits: the waiting one stands for it
    await world.server.app.db.updateTable("jobs").set({ key: "k" }).where("id", "=", id).execute();
    const res = await world.admin.post(`/api/admin/jobs/${id}/retry`, {});
    expect(res.body.data).toEqual({ outcome: "superseded" });
    expect(await world.server.app.db.selectFrom("jobs").select("id").where("id", "=", id).execute()).toEqual([]);
  });

  test("only administrators see or change the queue", async () => {
    expectError(await world.person.get("/api/admin/jobs"), 403, "FORBIDDEN");
    expectError(await world.person.post("/api/admin/jobs/1/retry", {}), 403, "FORBIDDEN");
  });
});
