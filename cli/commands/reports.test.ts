import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { openApp } from "../../src/wiring";
import { createPost } from "../../src/domain/posts/service";
import { fileReport } from "../../src/domain/reports/service";
import { requireUserByUsername } from "../../src/domain/users/service";
import { silentLogger } from "../../src/lib/log";
import { cliHarness } from "../../src/testing/cli";

const { dataDir, run, runJson, expectOneLineFailure, cleanup } = cliHarness();
afterAll(cleanup);
// each step spawns processes; a busy machine makes them slow
setDefaultTimeout(120_000);

/** Opens the instance in-process for what the CLI has no command for (posting, reporting). */
async function withInstance<T>(fn: (app: Awaited<ReturnType<typeof openApp>>) => Promise<T>): Promise<T> {
  const app = await openApp({ dataDir, log: silentLogger });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

describe("socialctl reports", () => {
  test("list shows the open queue by target; resolve acts, is audited and notifies the reporters", async () => {
    await runJson("init", "--yes", "--registration", "open");
    for (const name of ["ann", "bob", "cat"])
      await runJson(
        "user",
        "create",
        "--email",
        `${name}@example.test`,
        "--username",
        name,
        "--password",
        "a password 1",
      );
    expect((await runJson("reports", "list")).json).toEqual({ groups: [], nextCursor: null });
    expect((await run("reports", "list")).stdout.trim()).toBe("No open reports.");

    const postId = await withInstance(async (app) => {
      const ann = await requireUserByUsername(app.db, "ann");
      const { post } = await createPost(app, ann, { content: "Buy followers cheap" });
      for (const [name, reason] of [
        ["bob", "spam"],
        ["cat", "abuse"],
      ] as const)
        await fileReport(app, await requireUserByUsername(app.db, name), {
          target: { type: "post", id: post.cuid },
          reason,
          comment: name === "cat" ? "keeps posting this" : null,
        });
      return post.cuid;
    });

    const listed = (await runJson("reports", "list", "--status", "open")).json;
    expect(listed.nextCursor).toBeNull();
    expect(listed.groups).toHaveLength(1);
    const [group] = listed.groups;
    expect(group).toMatchObject({
      status: "open",
      target: { type: "post", id: postId, label: "Post by @ann", present: true, text: "Buy followers cheap" },
      reportCount: 2,
    });
    const id = group.reports[0].id;
    const human = (await run("reports", "list")).stdout;
    expect(human).toContain(`${id}  Post by @ann: 2 reports (abuse, spam)`);
    expect(human).toContain('"Buy followers cheap"');
    expect(human).toContain("@cat: keeps posting this");

    // one at a time: each is a process opening the instance
    await expectOneLineFailure(run("reports", "resolve", id, "--action", "ban"), /--action must be one of dismiss/);
    await expectOneLineFailure(
      run("reports", "resolve", id, "--action", "block-posting"),
      /minutes must be an integer from 1 to/,
    );
    await expectOneLineFailure(run("reports", "resolve", "nosuchreport", "--action", "dismiss"), /Report not found/);
    await expectOneLineFailure(run("reports", "list", "--status", "closed"), /--status must be open or resolved/);

    const resolved = await runJson(
      "reports",
      "resolve",
      id,
      "--action",
      "block-posting",
      "--minutes",
      "60",
      "--note",
      "spam wave",
    );
    expect(resolved.json).toMatchObject({
      resolved: 2,
      group: {
        status: "resolved",
        resolution: { action: "block-posting", note: "spam wave" },
        target: { account: { username: "ann", postingBlockedUntil: expect.any(String) } },
      },
    });
    expect((await runJson("reports", "list")).json.groups).toEqual([]);
    expect((await runJson("reports", "list", "--status", "resolved")).json.groups[0].reportCount).toBe(2);
    const again = await run("--json", "reports", "resolve", id, "--action", "dismiss");
    expect(again.code).not.toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ error: { message: "The report is already resolved" } });

    await withInstance(async (app) => {
      const ann = await requireUserByUsername(app.db, "ann");
      expect(ann.posting_blocked_until).toBeGreaterThan(app.clock.now());
      const audit = await app.db.selectFrom("admin_audit").selectAll().orderBy("id").execute();
      expect(audit.map((a) => [a.actor_username, a.action, a.target_type])).toEqual([
        ["system", "report.resolve", "report"],
        ["system", "account.block-posting", "account"],
      ]);
      expect(JSON.parse(audit[0]!.details)).toMatchObject({ action: "block-posting", minutes: 60, reports: 2 });
      const notes = await app.db.selectFrom("notifications").select(["type", "recipient_id"]).execute();
      expect(notes.map((n) => n.type)).toEqual(["report", "report"]);
    });
  });
});
