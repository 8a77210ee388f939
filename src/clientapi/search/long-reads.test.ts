import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { quickPerson } from "../../testing/fixtures";
import { testsOnPostgres } from "../../testing/postgres";
import { startTestServer, type TestServer } from "../../testing/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ "limits.longReadQueue": 2 });
}, 120_000);
afterAll(() => server.stop());

/**
 * A long read that runs until about LONG_MS from now: a count with the search budget checked
 * on every row (so the worker stays busy calling back into JavaScript, and ends by itself).
 */
const LONG_MS = 8_000;
function occupyLongReads(): { settled: () => boolean; done: Promise<unknown> } {
  const deadline = Date.now() + LONG_MS;
  let settled = false;
  const done =
    sql`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE social_search_before(${deadline}, x))
    SELECT count(*) AS n FROM c`
      .execute(server.app.storage.longReads)
      .catch((err: unknown) => err)
      .finally(() => (settled = true));
  return { settled: () => settled, done };
}

// PostgreSQL's long reads go to the database (the node only waits): no worker to occupy
describe.skipIf(testsOnPostgres())("long reads run off the serving thread", () => {
  test("/healthz and a feed page answer while a search waits behind a long read", async () => {
    const { client } = await quickPerson(server);
    await client.post("/api/social/posts", { content: "a post in the feed" });
    const long = occupyLongReads();
    let searched = false;
    const search = client.get("/api/social/search?q=anything&type=messages").finally(() => void (searched = true));
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const feed = await client.get("/api/social/feed?limit=5");
      expect(feed.status).toBe(200);
      expect(feed.body.data.feed.map((p: any) => p.content)).toContain("a post in the feed");
    }
    // every answer above came while the long read held the worker and the search waited for it
    expect(long.settled()).toBe(false);
    expect(searched).toBe(false);
    await long.done;
    const found = await search;
    // the search's own budget counted from its start: behind the long read it ran out
    expect([200, 503]).toContain(found.status);
  }, 60_000);

  test("a search beyond the waiting long reads is refused at once with SEARCH_TIMEOUT", async () => {
    const { client } = await quickPerson(server);
    const long = occupyLongReads();
    // the queue holds two: the long read and one of these searches; the other is refused
    const searches = [1, 2].map(() => client.get("/api/social/search?q=anything&type=posts"));
    const first = await Promise.race(searches);
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe("SEARCH_TIMEOUT");
    expect(long.settled()).toBe(false);
    await long.done;
    const statuses = (await Promise.all(searches)).map((r) => r.status).sort();
    expect(statuses[1]).toBe(503);
    expect([200, 503]).toContain(statuses[0]!);
  }, 60_000);

  test("a search of every list is one long read, however many statements it sends: it waits, not refused", async () => {
    const { client } = await quickPerson(server);
    const long = occupyLongReads();
    // people, posts, hashtags and messages: four statements for the one place left in the queue
    let settled = false;
    const search = client.get("/api/social/search?q=anything").finally(() => void (settled = true));
    await Bun.sleep(500);
    expect(settled).toBe(false);
    expect(long.settled()).toBe(false);
    await long.done;
    expect([200, 503]).toContain((await search).status);
  }, 60_000);
});
