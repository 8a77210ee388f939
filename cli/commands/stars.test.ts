import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { auditLedger } from "../../src/domain/stars/ledger";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

describe("socialctl stars", () => {
  test("grant credits stars and prints the new balance; balance reads it", async () => {
    await runJson("init", "--yes", "--registration", "open");
    await runJson("user", "create", "--email", "sam@example.test", "--username", "sam", "--password", "sam password 1");
    expect((await runJson("stars", "grant", "sam", "25", "--reason", "launch gift")).json).toEqual({
      username: "sam",
      granted: 25,
      balance: 25,
    });
    expect((await runJson("stars", "grant", "SAM", "5")).json.balance).toBe(30);
    const human = await run("stars", "grant", "sam", "1");
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe("Granted 1 ⭐ to sam; balance 31");
    expect((await runJson("stars", "balance", "sam")).json).toEqual({ username: "sam", balance: 31 });
    // the documented form, with --json after the arguments
    const trailing = await run("stars", "grant", "sam", "4", "--json");
    expect([trailing.code, JSON.parse(trailing.stdout)]).toEqual([0, { username: "sam", granted: 4, balance: 35 }]);

    const app = await openApp({ dataDir, log: silentLogger });
    try {
      const rows = await app.db.selectFrom("star_ledger").select(["kind", "amount", "note"]).orderBy("id").execute();
      expect(rows).toEqual([
        { kind: "grant", amount: 25, note: "launch gift" },
        { kind: "grant", amount: 5, note: null },
        { kind: "grant", amount: 1, note: null },
        { kind: "grant", amount: 4, note: null },
      ]);
      expect(await auditLedger(app.db)).toMatchObject({ granted: 35, balances: 35, mismatchedWallets: [] });
    } finally {
      await app.close();
    }
  });

  test("bad input fails with one line and changes nothing", async () => {
    await Promise.all([
      expectOneLineFailure(run("stars", "grant", "sam", "0"), /amount must be a positive integer/),
      expectOneLineFailure(run("stars", "grant", "sam", "-5"), /./),
      expectOneLineFailure(run("stars", "grant", "sam", "2.5"), /amount must be a positive integer/),
      expectOneLineFailure(
        run("stars", "grant", "sam", "2000000000"),
        /amount must be an integer from 1 to 1000000000/,
      ),
      expectOneLineFailure(run("stars", "grant", "nobody", "5"), /User nobody not found/),
    ]);
    const failed = await run("--json", "stars", "grant", "nobody", "5");
    expect(JSON.parse(failed.stdout)).toEqual({ error: { message: "User nobody not found" } });
    expect((await runJson("stars", "balance", "sam")).json.balance).toBe(35);
  });
});
