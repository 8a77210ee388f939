import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../testing/wait";
import { WorkerRequests } from "./worker-requests";

/**
 * A thread that answers `{wait, value}` with VALUE after WAIT ms (busy, as a statement keeps a
 * database worker: one request at a time, in order), refuses to open when told, and says when it
 * closed.
 */
const SOURCE = `
let closed = false;
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "open") {
    if (m.refuse) postMessage({ type: "openFailed", message: "refused" });
    else setTimeout(() => postMessage({ type: "ready" }), m.openMs ?? 0);
    return;
  }
  if (m.type === "close") {
    closed = true;
    postMessage({ type: "done", id: m.id });
    return;
  }
  if (m.fail) return postMessage({ type: "failed", id: m.id, message: "no", code: "E_NO" });
  const end = Date.now() + (m.wait ?? 0);
  while (Date.now() < end);
  postMessage({ type: "done", id: m.id, result: { value: m.value, closed } });
};
`;

describe("a worker thread answering requests", () => {
  test("answers each request, failures with the thread's message and code; counts what waits", async () => {
    const thread = new WorkerRequests("test worker", SOURCE, () => ({}));
    const slow = thread.ask({ wait: 50, value: 1 });
    const fast = thread.ask({ value: 2 });
    expect(thread.waiting).toBe(2);
    expect(await Promise.all([slow, fast])).toEqual([
      { value: 1, closed: false },
      { value: 2, closed: false },
    ]);
    expect(thread.waiting).toBe(0);
    const failed = (await thread.ask({ fail: true }).catch((e: unknown) => e)) as Error & { code?: string };
    expect([failed.message, failed.code]).toEqual(["no", "E_NO"]);
    await thread.close();
    await expect(thread.ask({ value: 3 })).rejects.toThrow("closed");
  });

  test("a thread that cannot start fails what was asked, and the next request tries again", async () => {
    let refuse = true;
    const thread = new WorkerRequests("test worker", SOURCE, () => ({ refuse }));
    await expect(thread.ask({ value: 1 })).rejects.toThrow("test worker did not start: refused");
    await Bun.sleep(20);
    refuse = false;
    expect(await thread.ask({ value: 2 })).toEqual({ value: 2, closed: false });
    await thread.close();
  });

  test("closing lets the thread finish what it has; closing while it starts fails the request, nothing unhandled", async () => {
    const thread = new WorkerRequests("test worker", SOURCE, () => ({}));
    // the thread is up (a loaded machine may take longer than any fixed wait to start it)
    expect(await thread.ask({ value: "first" })).toEqual({ value: "first", closed: false });
    const running = thread.ask({ wait: 100, value: "last" });
    await Bun.sleep(20);
    await thread.close();
    expect(await running).toEqual({ value: "last", closed: false });

    const starting = new WorkerRequests("test worker", SOURCE, () => ({ openMs: 200 }));
    const asked = starting.ask({ value: 1 }).catch((e: Error) => e);
    await Bun.sleep(20);
    await starting.close();
    expect(((await asked) as Error).message).toBe("test worker failed: the database is closed");
  });

  test("closing a thread that holds a database waits for it to exit: its lock is let go of when close() ends", async () => {
    // a thread that locks a database, then is slow to say it is ready
    const source = `
      import { Database } from "bun:sqlite";
      self.onmessage = (e) => {
        if (e.data.type !== "open") return;
        // held by the thread's global scope: a connection collected as garbage would close
        self.db = new Database(e.data.path);
        self.db.exec("BEGIN EXCLUSIVE");
        self.db.exec("CREATE TABLE t (x)");
        setTimeout(() => postMessage({ type: "ready" }), 10_000);
      };
    `;
    const dir = mkdtempSync(join(tmpdir(), "socialctl-worker-"));
    const path = join(dir, "t.db");
    const locksAlone = () => {
      const db = new Database(path);
      try {
        db.exec("PRAGMA busy_timeout = 0");
        db.exec("BEGIN EXCLUSIVE");
        db.exec("ROLLBACK");
        return true;
      } catch {
        return false;
      } finally {
        db.close();
      }
    };
    try {
      const thread = new WorkerRequests("test worker", source, () => ({ path }));
      const asked = thread.ask({ value: 1 }).catch((e: Error) => e);
      await waitFor(() => existsSync(path) && !locksAlone(), 5_000, "the thread to lock the database");
      await thread.close();
      expect(((await asked) as Error).message).toBe("test worker failed: the database is closed");
      expect(locksAlone()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a process that closed its thread ends at once: closing leaves nothing waiting behind it", async () => {
    const script = `
      import { WorkerRequests } from ${JSON.stringify(join(import.meta.dir, "worker-requests.ts"))};
      const thread = new WorkerRequests("test worker", ${JSON.stringify(SOURCE)}, () => ({}));
      await thread.ask({ value: 1 });
      await thread.close();
      console.log("closed");
    `;
    const started = performance.now();
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect([out.trim(), code]).toEqual(["closed", 0]);
    // well under the time close() would wait for a thread that never answers
    expect(performance.now() - started).toBeLessThan(4_000);
  }, 15_000);
});
