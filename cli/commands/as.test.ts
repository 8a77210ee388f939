import { afterAll, describe, expect, test } from "bun:test";
import { cliHarness, startServeProcess } from "../../src/testing/cli";
import { silentLogger } from "../../src/lib/log";
import { openApp } from "../../src/wiring";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);

describe("socialctl as, against an instance `serve` runs", () => {
  test("finds the server on the port it listens on, or at --url; a bot or a stranger cannot be scripted", async () => {
    expect((await run("init", "--yes")).code).toBe(0);
    expect(
      (await run("user", "create", "--email", "a@example.test", "--username", "alice", "--password", "alice pass"))
        .code,
    ).toBe(0);
    expect((await run("bot", "create", "--owner", "alice", "--username", "helper_bot", "--name", "Helper")).code).toBe(
      0,
    );
    // port 0: the server listens elsewhere than the config says, and records where in the data dir
    const serve = await startServeProcess(dataDir);
    try {
      const sent = await runJson("as", "alice", "send", "@helper_bot", "hello", "there");
      expect(sent.json).toMatchObject({ content: "hello there", sender: { username: "alice", isBot: false } });

      const read = await run("--json", "as", "alice", "read", "helper_bot", "--url", serve.listening.url);
      expect(read.code).toBe(0);
      expect(
        read.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l).content),
      ).toEqual(["hello there"]);

      // each command signed in for itself, and out again when it ended
      const app = await openApp({ dataDir, log: silentLogger });
      try {
        const sessions = await app.db.selectFrom("sessions").select(["user_agent", "revoked_at"]).execute();
        expect(sessions.map((s) => [s.user_agent, s.revoked_at !== null])).toEqual([
          ["socialctl as", true],
          ["socialctl as", true],
        ]);
      } finally {
        await app.close();
      }
      await expectOneLineFailure(
        run("as", "helper_bot", "send", "@alice", "hi"),
        /helper_bot is a bot; 'as' speaks for a person/,
      );
      await expectOneLineFailure(run("as", "nobody", "send", "@helper_bot", "hi"), /User nobody not found/);
      await expectOneLineFailure(run("as", "alice", "send", "@ghost_bot", "hi"), /not found/);
      await expectOneLineFailure(
        run("as", "alice", "press", "@helper_bot", "Go"),
        /none of the last 100 messages with @helper_bot has a button 'Go'/,
      );
      await expectOneLineFailure(
        run("as", "alice", "read", "@helper_bot", "--url", "http://127.0.0.1:1"),
        /cannot reach http:\/\/127\.0\.0\.1:1/,
      );
    } finally {
      serve.proc.kill("SIGTERM");
      await serve.proc.exited;
    }
  }, 120_000);
});
