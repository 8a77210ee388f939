import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { runCli } from "../testing/cli";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { expectError } from "../testing/admin";
import { storeConfigValues } from "../config";

/*
 * Settings an administrator changes on a running instance, on two nodes of one PostgreSQL and
 * one Redis: a change made through node A is in effect on node B within a second (the
 * invalidation over pub/sub), a node started later reads it at start, and a row written
 * without any message (a node whose message was lost) is picked up by the periodic check.
 */

// a PostgreSQL cluster, a redis-server and three servers on a shared, loaded machine
setDefaultTimeout(60_000);

let redis: TestRedis;
let dataDir: string;
let a: TestServer;
let b: TestServer;
let admin: TestClient;

const fresh = (n: string) => ({ email: `${n}@example.test`, username: n, password: "long enough pw" });
const registerOn = (node: TestServer, name: string) => new TestClient(node.url).post("/api/auth/register", fresh(name));
const instanceOn = async (node: TestServer) => (await new TestClient(node.url).get("/api/instance")).body.data.instance;

beforeAll(async () => {
  redis = await startTestRedis();
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-shared-settings-"));
  // in the data dir's config file, as an operator sets them: `socialctl` run on the dir uses them too
  storeConfigValues(dataDir, { "database.url": await freshPostgresDatabase(), "pubsub.url": redis.url });
  a = await startTestServer({}, { dataDir });
  b = await startTestServer({}, { dataDir });
  admin = (await signedInClient(a, { isAdmin: true })).client;
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("settings changed live apply on every node", () => {
  test("registration closed through A refuses a registration on B within a second", async () => {
    expect((await registerOn(b, "before_close")).status).toBe(200);
    expect((await admin.patch("/api/admin/settings", { registration: "closed" })).status).toBe(200);
    const changedAt = Date.now();
    let attempt = 0;
    const refused = await waitFor(
      async () => {
        const res = await registerOn(b, `try_${++attempt}`);
        return res.status === 403 ? res : null;
      },
      1000,
      "registration refused on B",
    );
    expect(Date.now() - changedAt).toBeLessThan(1000);
    expectError(refused, 403, "FORBIDDEN");
    expect((await instanceOn(b)).registration).toBe("closed");
    // nothing registered on B once it answered with the new mode
    expect((await admin.patch("/api/admin/settings", { registration: "open" })).status).toBe(200);
    await waitFor(async () => (await instanceOn(b)).registration === "open", 1000, "registration open on B");
  });

  test("an instance name and a limit changed through A are what B serves", async () => {
    const changed = await admin.patch("/api/admin/settings", {
      "instance.name": "Shared Place",
      "limits.postsPerHour": 1,
    });
    expect(changed.status).toBe(200);
    await waitFor(async () => (await instanceOn(b)).name === "Shared Place", 1000, "B's /api/instance name");
    const onB = new TestClient(b.url);
    for (const [k, v] of admin.cookies) onB.cookies.set(k, v);
    onB.csrf = admin.csrf;
    const settingsOnB = (await onB.get("/api/admin/settings")).body.data.settings;
    expect(settingsOnB.find((s: any) => s.key === "limits.postsPerHour").value).toBe(1);
    const author = await quickPerson(b);
    expect((await author.client.post("/api/social/posts", { content: "one" })).status).toBe(200);
    expectError(await author.client.post("/api/social/posts", { content: "two" }), 429, "RATE_LIMITED");
  });

  test("a node started after the change applies it over its config file and start-up values", async () => {
    // its start-up values say otherwise: the stored ones win
    const c = await startTestServer({ "instance.name": "Not This", "limits.postsPerHour": 60 }, { dataDir });
    try {
      expect((await instanceOn(c)).name).toBe("Shared Place");
      expect(c.app.config["limits.postsPerHour"]).toBe(1);
    } finally {
      await c.stop();
    }
  });

  test("a change stored without any message reaches B by the periodic check", async () => {
    await a.app.db
      .insertInto("live_settings")
      .values({ key: "instance.contact", value: JSON.stringify("ops@example.test"), updated_at: 1, updated_by: null })
      .execute();
    await waitFor(async () => (await instanceOn(b)).contact === "ops@example.test", 10_000, "B's contact");
  });

  test("socialctl config set of a live key reaches the running nodes", async () => {
    const run = await runCli(["--data-dir", dataDir, "--json", "config", "set", "instance.description", "By the CLI"]);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ key: "instance.description", value: "By the CLI" });
    await waitFor(async () => (await instanceOn(a)).description === "By the CLI", 1000, "A's description");
    await waitFor(async () => (await instanceOn(b)).description === "By the CLI", 1000, "B's description");
  });
});
