import { afterAll, describe, expect, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { findBotByToken } from "../../src/domain/bots/service";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_LOCK_FILE } from "../../src/config/layout";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);

/** Whether TOKEN opens a bot in the instance (read straight from the database). */
async function tokenWorks(token: string): Promise<boolean> {
  const app = await openApp({ dataDir, log: silentLogger });
  try {
    return (await findBotByToken(app.db, token)) !== null;
  } finally {
    await app.close();
  }
}

describe("socialctl bot", () => {
  test("create, list, token --reissue, disable, enable", async () => {
    expect((await run("init", "--yes")).code).toBe(0);
    expect(
      (
        await run(
          "user",
          "create",
          "--email",
          "owner@example.test",
          "--username",
          "owner",
          "--password",
          "owner password",
        )
      ).code,
    ).toBe(0);

    const created = await runJson("bot", "create", "--owner", "owner", "--username", "helper_bot", "--name", "Helper");
    expect(created.code).toBe(0);
    const token = created.json.token as string;
    expect(typeof token).toBe("string");
    expect(created.json).toMatchObject({
      username: "helper_bot",
      name: "Helper",
      owner: "owner",
      enabled: true,
      privacy: "commands",
    });
    expect(token.startsWith(`${created.json.id}:`)).toBe(true);
    expect(await tokenWorks(token)).toBe(true);

    const human = await run("bot", "create", "--owner", "owner", "--username", "second_bot", "--name", "Second");
    expect(human.code).toBe(0);
    const root = "http://127.0.0.1:3000"; // the default port
    expect(human.stdout).toMatch(
      new RegExp(
        `^Created second_bot\nToken \\(shown once, keep it secret\\): \\d+:[A-Za-z0-9_-]+\nAPI root for grammY, Telegraf, node-telegram-bot-api: ${root}\npython-telegram-bot base_url: ${root}/bot\n$`,
      ),
    );
    expect(created.json).toMatchObject({
      apiRoot: root,
      libraries: { grammy: root, telegraf: root, "node-telegram-bot-api": root, "python-telegram-bot": `${root}/bot` },
    });

    // a server listening elsewhere than the config's port (`serve --port`) is what libraries must reach
    writeFileSync(
      join(dataDir, SERVER_LOCK_FILE),
      JSON.stringify({ pid: process.pid, url: "http://127.0.0.1:45678", startedAt: new Date().toISOString() }),
    );
    try {
      const listed = await runJson("bot", "list");
      expect(listed.json.bots[0]).toMatchObject({
        apiRoot: "http://127.0.0.1:45678",
        libraries: { "python-telegram-bot": "http://127.0.0.1:45678/bot" },
      });
    } finally {
      rmSync(join(dataDir, SERVER_LOCK_FILE));
    }

    const list = await runJson("bot", "list");
    expect(list.json.bots.map((b: any) => b.username)).toEqual(["helper_bot", "second_bot"]);
    expect(list.stdout).not.toContain(token.split(":")[1]);

    const reissued = await runJson("bot", "token", "helper_bot", "--reissue");
    expect(reissued.json.token).not.toBe(token);
    expect(await tokenWorks(token)).toBe(false);
    expect(await tokenWorks(reissued.json.token)).toBe(true);

    expect((await runJson("bot", "disable", "helper_bot")).json.enabled).toBe(false);
    expect((await runJson("bot", "enable", "helper_bot")).json.enabled).toBe(true);
  }, 60_000);

  test("failures are one line with a non-zero exit", async () => {
    await Promise.all([
      expectOneLineFailure(
        run("bot", "create", "--owner", "owner", "--username", "nosuffix", "--name", "X"),
        /username a bot username must end with _bot/,
      ),
      expectOneLineFailure(
        run("bot", "create", "--owner", "ghost", "--username", "ghost_bot", "--name", "X"),
        /User ghost not found/,
      ),
      expectOneLineFailure(
        run("bot", "create", "--owner", "owner", "--username", "helper_bot", "--name", "X"),
        /username is taken/,
      ),
      expectOneLineFailure(run("bot", "token", "helper_bot"), /use --reissue/),
      expectOneLineFailure(run("bot", "token", "ghost_bot", "--reissue"), /bot ghost_bot not found/),
      expectOneLineFailure(run("bot", "disable", "ghost_bot"), /Bot ghost_bot not found/),
    ]);
  }, 120_000);
});
