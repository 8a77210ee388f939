import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONTROL_SOCKET } from "../config/layout";
import { startTestServer, type TestServer } from "../testing/server";
import { signedInClient } from "../testing/fixtures";
import { SseClient } from "../testing/realtime";
import { SOCIALCTL } from "../testing/cli";
import { reportToRunningServer } from "./control";

/*
 * The control socket lets `socialctl` commands push live events into people's streams, so
 * only the instance's owner may use it: the data dir and the socket are owner-only whatever
 * the umask, and a connection that cannot prove it holds the instance secret is refused.
 */

const modeOf = (path: string) => statSync(path).mode & 0o777;

let parent: string;
let server: TestServer;
beforeAll(async () => {
  parent = mkdtempSync(join(tmpdir(), "socialctl-control-"));
  // the most permissive umask: every mode below is the code's, not the umask's
  const umask = process.umask(0);
  try {
    server = await startTestServer({}, { dataDir: join(parent, "instance", "data") });
  } finally {
    process.umask(umask);
  }
});
afterAll(async () => {
  await server.stop();
  rmSync(parent, { recursive: true, force: true });
});

/**
 * Sends LINE on the control socket as soon as it connects, as an intruder would, or, given a
 * function, the line it makes of the server's first line; resolves with the server's answer.
 */
async function sendOnSocket(line: string | ((firstLine: string) => string)): Promise<string> {
  let received = "";
  let sent = false;
  const { promise, resolve } = Promise.withResolvers<string>();
  const send = (socket: { write(data: string): number }, text: string) => {
    sent = true;
    socket.write(`${text}\n`);
  };
  await Bun.connect({
    unix: join(server.dataDir, CONTROL_SOCKET),
    socket: {
      open(socket) {
        if (typeof line === "string") send(socket, line);
      },
      data(socket, chunk) {
        received += chunk.toString();
        const end = received.indexOf("\n");
        if (sent || end < 0 || typeof line === "string") return;
        send(socket, line(received.slice(0, end)));
        received = received.slice(end + 1);
      },
      close: () => resolve(received.trim().split("\n").at(-1)!),
    },
  });
  return promise;
}

describe("under umask 000", () => {
  test("the data dir a server creates is 0700 and its control socket 0600", () => {
    expect(modeOf(server.dataDir).toString(8)).toBe("700");
    expect(modeOf(join(server.dataDir, CONTROL_SOCKET)).toString(8)).toBe("600");
  });

  test("the data dir `socialctl init` creates is 0700", async () => {
    const dataDir = join(parent, "by-init");
    const child = Bun.spawn(
      ["sh", "-c", 'umask 000 && exec "$@"', "sh", ...SOCIALCTL, "--data-dir", dataDir, "init", "--yes"],
      {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, CI: "1" },
      },
    );
    expect(await child.exited).toBe(0);
    expect(modeOf(dataDir).toString(8)).toBe("700");
  }, 30_000);
});

describe("what arrives on the control socket is authenticated", () => {
  const forged = (userId: number) => ({
    userId,
    event: "stars:balance" as const,
    data: { balance: 1_000_000 },
  });

  test("a report without the proof is refused and its event reaches no stream", async () => {
    const { user, client } = await signedInClient(server);
    const sse = await SseClient.open(server.url, client);
    expect(await sendOnSocket(JSON.stringify({ events: [forged(user.id)] }))).toBe("refused");
    expect(await sendOnSocket((challenge) => JSON.stringify({ proof: challenge, events: [forged(user.id)] }))).toBe(
      "refused",
    );
    expect(await sendOnSocket("not json")).toBe("refused");
    // a report from the owner, sent after the forged ones, arrives: nothing came before it
    expect(await reportToRunningServer(server.dataDir, server.app.secret, [forged(user.id)])).toBe(true);
    const frames = await sse.waitFor((f) => f.some((x) => x.event === "stars:balance"));
    expect(frames.filter((f) => f.event === "stars:balance")).toHaveLength(1);
    sse.close();
  });

  test("a report with another instance's secret is refused", async () => {
    const { user } = await signedInClient(server);
    await expect(reportToRunningServer(server.dataDir, "not the instance secret", [forged(user.id)])).rejects.toThrow(
      "did not confirm",
    );
  });
});
