import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { registerAccount } from "../../src/domain/auth/registration";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

describe("socialctl invite", () => {
  let invite: any;

  test("create --json prints the invite, with a link and the defaults of one use and a week", async () => {
    await runJson("init", "--yes", "--registration", "invite", "--port", "4200");
    const made = await runJson("invite", "create", "--max-uses", "2", "--expires-in-hours", "48");
    expect(made.code).toBe(0);
    invite = made.json.invite;
    expect(invite).toMatchObject({ maxUses: 2, uses: 0, state: "live", createdBy: null, revokedAt: null });
    expect(invite.url).toBe(`http://127.0.0.1:4200/register?invite=${invite.code}`);
    expect(Date.parse(invite.expiresAt) - Date.parse(invite.createdAt)).toBe(48 * 3600_000);
    // defaults: one use, a week
    const plain = (await runJson("invite", "create")).json.invite;
    expect(plain.maxUses).toBe(1);
    expect(Date.parse(plain.expiresAt) - Date.parse(plain.createdAt)).toBe(7 * 24 * 3600_000);
    const human = await run("invite", "create");
    expect(human.stdout).toMatch(/^Invite [A-Za-z0-9_-]{16}: http:\/\/127\.0\.0\.1:4200\/register\?invite=/);
  });

  test("the code admits a sign-up; list shows the use", async () => {
    // the code admits a sign-up on this instance
    const app = await openApp({ dataDir, log: silentLogger });
    try {
      await registerAccount(app, {
        email: "cli_invited@example.test",
        username: "cli_invited",
        password: "long enough pw",
        inviteCode: invite.code,
      });
    } finally {
      await app.close();
    }
    const listed = (await runJson("invite", "list")).json.invites;
    expect(listed).toHaveLength(3);
    expect(listed.find((i: any) => i.code === invite.code)).toMatchObject({ uses: 1, state: "live" });
  });

  test("revoke stops an invite; bad numbers and unknown codes fail on one line", async () => {
    expect((await runJson("invite", "revoke", invite.code)).json.invite).toMatchObject({
      code: invite.code,
      state: "revoked",
    });
    await Promise.all([
      expectOneLineFailure(run("invite", "create", "--max-uses", "0"), /maxUses.*must be a whole number from 1/),
      expectOneLineFailure(
        run("invite", "create", "--expires-in-hours", "soon"),
        /--expires-in-hours must be a whole number/,
      ),
      expectOneLineFailure(run("invite", "revoke", "nosuchcode"), /No such invite/),
    ]);
  });
});
