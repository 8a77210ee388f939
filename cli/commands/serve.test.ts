import { Database } from "bun:sqlite";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { cliHarness, runCli, startServeProcess } from "../../src/testing/cli";

const { dataDir, tmp, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

const startServe = () => startServeProcess(dataDir);

/**
 * Sends INIT's request to URL's /api/auth/login over a raw connection; resolves once the
 * connection is made and the request written, with the answer (status and JSON body) to come.
 */
async function loginInFlight(url: string, init: RequestInit) {
  const { hostname, port } = new URL(url);
  const headers = Object.entries(init.headers as Record<string, string>);
  const body = init.body as string;
  let received = "";
  const { promise: closed, resolve: close } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data: (_socket, chunk) => {
        received += chunk.toString();
      },
      close: () => close(),
      error: () => close(),
    },
  });
  socket.write(
    [
      `POST /api/auth/login HTTP/1.1`,
      `host: ${hostname}:${port}`,
      ...headers.map(([name, value]) => `${name}: ${value}`),
      `content-length: ${Buffer.byteLength(body)}`,
      "connection: close",
      "",
      body,
    ].join("\r\n"),
  );
  const answer = closed.then(() => {
    const [head = "", json = ""] = received.split("\r\n\r\n");
    return {
      status: Number(head.split(" ")[1]),
      body: JSON.parse(json) as { data: { account: { username: string } } },
    };
  });
  return { answer };
}

describe("socialctl serve: graceful shutdown", () => {
  test("SIGTERM answers the long poll, ends streams, lets a login in flight finish, exits 0 and closes the database cleanly", async () => {
    expect((await run("init", "--yes", "--registration", "open")).code).toBe(0);
    expect(
      (
        await run(
          "user",
          "create",
          "--email",
          "ann@example.test",
          "--username",
          "ann",
          "--password",
          "ann password",
          "--verified",
        )
      ).code,
    ).toBe(0);
    const bot = await runJson("bot", "create", "--owner", "ann", "--username", "waiter_bot", "--name", "Waiter");
    expect(bot.code).toBe(0);

    const { proc, listening, stdoutAfter, stderr } = await startServe();
    const { url } = listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(listening.dataDir).toBe(dataDir);

    const csrf = ((await (await fetch(`${url}/api/auth/csrf`)).json()) as { data: { csrfToken: string } }).data
      .csrfToken as string;
    const loginInit = (): RequestInit => ({
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-csrf-token": csrf,
        cookie: `csrf_token=${encodeURIComponent(csrf)}`,
      },
      body: JSON.stringify({ email: "ann@example.test", password: "ann password" }),
    });
    // a signed-in device holding an SSE stream open: shutdown must end it, not wait for it
    const first = await fetch(`${url}/api/auth/login`, loginInit());
    expect(first.status).toBe(200);
    const session = first.headers
      .getSetCookie()
      .map((l) => l.split(";")[0])
      .join("; ");
    const sse = await fetch(`${url}/api/realtime/events`, {
      headers: { cookie: session, accept: "text/event-stream" },
    });
    expect(sse.status).toBe(200);
    const sseEnded = new Response(sse.body).text().then(
      () => "ended",
      () => "ended",
    );
    const poll = fetch(`${url}/bot${bot.json.token}/getUpdates?timeout=20`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
      at: Date.now(),
    }));
    await Bun.sleep(300); // the long poll is now waiting inside the server
    // the login goes over a socket known to be connected, whole, before the signal: a fetch
    // started just before it may not have connected yet on a busy machine, and be refused
    const login = (await loginInFlight(url, loginInit())).answer;
    await Bun.sleep(30); // the login is in flight (bcrypt takes longer than this)
    const signalledAt = Date.now();
    proc.kill("SIGTERM");

    const [polled, loggedIn, code, streamEnd] = await Promise.all([poll, login, proc.exited, sseEnded]);
    expect(streamEnd).toBe("ended");
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body.data.account.username).toBe("ann");
    // the 20 s long poll was answered at shutdown, not held until its timeout
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual({ ok: true, result: [] });
    expect(polled.at - signalledAt).toBeLessThan(5000);
    expect(code).toBe(0);
    expect(await stdoutAfter).toBe(""); // --json: exactly one document
    expect(await stderr).toContain('"msg":"shutting down"');

    // closed cleanly: the WAL was checkpointed into the database and the file is consistent
    const wal = join(dataDir, "social.db-wal");
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    const db = new Database(join(dataDir, "social.db"), { readonly: true });
    try {
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      expect(db.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 2 });
    } finally {
      db.close();
    }
    // and nothing is left listening
    expect(
      await fetch(`${url}/healthz`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  });
});

describe("socialctl serve: a port already in use", () => {
  test("is refused with a one-line error, not shared with the listener already there", async () => {
    // another instance: Elysia's listen sets SO_REUSEPORT, so a second one used to bind beside it
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      reusePort: true,
      fetch: () => new Response("the other instance"),
    });
    try {
      const dir = tmp();
      expect((await runCli(["--data-dir", dir, "init", "--yes"])).code).toBe(0);
      // it exits on its own with the reason: one killed by the bound would have printed none
      await expectOneLineFailure(
        runCli(["--data-dir", dir, "serve", "--port", String(other.port), "--host", "127.0.0.1"]),
        new RegExp(`port ${other.port}.*in use`),
      );
      for (let i = 0; i < 5; i++)
        expect(await (await fetch(`http://127.0.0.1:${other.port}/`)).text()).toBe("the other instance");
    } finally {
      other.stop(true);
    }
  });
});
