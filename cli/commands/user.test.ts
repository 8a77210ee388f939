import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { createSession } from "../../src/domain/sessions/service";
import { findUserByUsername } from "../../src/domain/users/service";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

describe("socialctl init and user", () => {
  test("init --yes --json creates the instance; again it is idempotent", async () => {
    const first = await runJson("init", "--yes", "--registration", "open", "--port", "4100");
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      dataDir,
      created: true,
      config: { registration: "open", port: 4100 },
      baseUrl: "http://127.0.0.1:4100",
    });
    const [again] = await Promise.all([
      runJson("init", "--yes"),
      expectOneLineFailure(
        run("init", "--yes", "--registration", "sometimes"),
        /registration.*must be one of open, captcha, invite, closed/,
      ),
    ]);
    expect(again.json.created).toBe(false);
  });

  test("user create / list / disable / enable / set-password", async () => {
    const created = await runJson(
      "user",
      "create",
      "--email",
      "anna@example.test",
      "--username",
      "anna",
      "--password",
      "anna password",
      "--verified",
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      id: expect.any(String),
      username: "anna",
      email: "anna@example.test",
      verified: true,
    });
    const [weak, missing] = await Promise.all([
      run("--json", "user", "create", "--email", "b@example.test", "--username", "bob", "--password", "short"),
      run("user", "create", "--email", "c@example.test"),
      expectOneLineFailure(
        run("user", "create", "--email", "ANNA@example.test", "--username", "Anna", "--password", "anna password"),
        /email is already registered; username is taken/,
      ),
      expectOneLineFailure(run("user", "disable", "nobody"), /User nobody not found/),
      expectOneLineFailure(
        run("user", "set-password", "anna"),
        /no password: pass --password, answer the prompt on a terminal, or pipe it on stdin/,
      ),
      expectOneLineFailure(
        run("user", "set-password", "anna", "--password", "short"),
        /password must be at least 8 characters/,
      ),
    ]);
    expect(weak.code).toBe(1);
    expect(JSON.parse(weak.stdout)).toEqual({ error: { message: "password must be at least 8 characters" } });
    // commander's usage errors: non-zero exit naming the missing option
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("required option");

    expect((await runJson("user", "list")).json.users.map((u: any) => [u.username, u.disabled])).toEqual([
      ["anna", false],
    ]);
    expect((await runJson("user", "disable", "anna")).json).toEqual({ username: "anna", disabled: true });
    expect((await runJson("user", "list")).json.users[0].disabled).toBe(true);
    expect((await runJson("user", "enable", "anna")).json).toEqual({ username: "anna", disabled: false });
    expect((await runJson("user", "set-password", "anna", "--password", "new anna password")).json).toEqual({
      username: "anna",
      passwordChanged: true,
    });
  });

  test("user ban-devices bans every device the account signed in from", async () => {
    const app = await openApp({ dataDir, log: silentLogger });
    const anna = (await findUserByUsername(app.db, "anna"))!;
    const ttls = { accessTtlMs: 60_000, refreshTtlMs: 3600_000 };
    for (const deviceId of ["devAAAAAAAAAAAAAAAAAAAAA", "devBBBBBBBBBBBBBBBBBBBBB", "devAAAAAAAAAAAAAAAAAAAAA"]) {
      await createSession(app.db, app.clock.now(), ttls, {
        userId: anna.id,
        userAgent: "t",
        ip: "127.0.0.1",
        deviceId,
      });
    }
    await app.close();
    expect((await runJson("user", "ban-devices", "anna")).json).toEqual({ username: "anna", bannedDevices: 2 });
    expect((await runJson("user", "ban-devices", "anna")).json).toEqual({ username: "anna", bannedDevices: 0 });
    const check = await openApp({ dataDir, log: silentLogger });
    const rows = await check.db.selectFrom("banned_devices").select("device_id").orderBy("device_id").execute();
    await check.close();
    expect(rows.map((r) => r.device_id)).toEqual(["devAAAAAAAAAAAAAAAAAAAAA", "devBBBBBBBBBBBBBBBBBBBBB"]);
    await Promise.all([
      runJson("user", "unban-devices", "anna").then((r) =>
        expect(r.json).toEqual({ username: "anna", unbannedDevices: 2 }),
      ),
      expectOneLineFailure(run("user", "ban-devices", "ghost"), /User ghost not found/),
    ]);
  });

  // a dozen commands one after another: more than the file's default on a loaded machine
  test("user grant-admin / revoke-admin, never revoking the last administrator", async () => {
    expect((await runJson("user", "grant-admin", "anna")).json).toEqual({
      username: "anna",
      admin: true,
      changed: true,
    });
    expect((await runJson("user", "grant-admin", "ANNA")).json).toEqual({
      username: "anna",
      admin: true,
      changed: false,
    });
    expect((await runJson("user", "list")).json.users.find((u: any) => u.username === "anna").admin).toBe(true);

    // anna is the only administrator: refused, with a reason and a non-zero exit, in both outputs
    const refused = await run("--json", "user", "revoke-admin", "anna");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error: { message: "anna is the last administrator: grant admin to another account first" },
    });
    await expectOneLineFailure(run("user", "revoke-admin", "anna"), /anna is the last administrator/);
    await expectOneLineFailure(run("user", "grant-admin", "ghost"), /User ghost not found/);

    const bert = await runJson(
      "user",
      "create",
      "--email",
      "bert@example.test",
      "--username",
      "bert",
      "--password",
      "bert password",
    );
    expect(bert.json.admin).toBe(false);
    expect((await runJson("user", "grant-admin", "bert")).json).toEqual({
      username: "bert",
      admin: true,
      changed: true,
    });
    expect((await runJson("user", "revoke-admin", "anna")).json).toEqual({
      username: "anna",
      admin: false,
      changed: true,
    });
    expect((await runJson("user", "revoke-admin", "anna")).json).toEqual({
      username: "anna",
      admin: false,
      changed: false,
    });
    await expectOneLineFailure(run("user", "revoke-admin", "bert"), /bert is the last administrator/);
    const admins = (await runJson("user", "list")).json.users.filter((u: any) => u.admin).map((u: any) => u.username);
    expect(admins).toEqual(["bert"]);
  }, 90_000);
});
