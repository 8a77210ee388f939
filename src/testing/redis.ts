import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort } from "./server";

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL with "kill", as a crash would) and removes its dir. */
  stop(how?: "term" | "kill"): Promise<void>;
  /** Kills the server (SIGKILL): an outage begins. */
  kill(): Promise<void>;
  /** Starts a new, empty server on the same port: the outage ends. */
  revive(): Promise<void>;
}

const REDIS_SERVER = "/usr/bin/redis-server";

/**
 * A real redis-server on a free loopback port, in a temp dir, nothing persisted; stopped by
 * stop(). Waits until it answers PING.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "socialctl-redis-"));
  const port = freeLoopbackPort();
  const bin = Bun.which("redis-server") ?? REDIS_SERVER;
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const launch = async () => {
    proc = Bun.spawn(
      [bin, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      { stdout: "ignore", stderr: "pipe" },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const sock = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
        sock.end();
        return;
      } catch {
        if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
        if (Date.now() > deadline) throw new Error("redis-server did not start within 10 s");
        await Bun.sleep(20);
      }
    }
  };
  await launch();
  const halt = async (how: "term" | "kill") => {
    if (!proc || proc.exitCode !== null) return;
    proc.kill(how === "kill" ? "SIGKILL" : "SIGTERM");
    await proc.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop(how = "term") {
      await halt(how);
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => halt("kill"),
    revive: launch,
  };
}
