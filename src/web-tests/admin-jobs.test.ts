import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import {
  browserAvailable,
  newPerson,
  pageProblems,
  signInThroughForm,
  useBrowser,
  withScreenshots,
  expectAccessible,
} from "../testing/browser";
import { makeUser } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { inTransaction } from "../db/transaction";
import { PermanentJobError, enqueueJob, registerJobHandler } from "../jobs/queue";

// The admin area's status section: each node's readiness and the job queue, with dead jobs retried and dropped.
const run = browserAvailable();
let server: TestServer;
const pages: Page[] = [];
const b = run ? useBrowser() : null;
/** whether the test's handler refuses its jobs for good (dead at once) or carries them out */
let refusing = true;
const carried: unknown[] = [];

beforeAll(async () => {
  server = await startTestServer();
  registerJobHandler(server.app, {
    kind: "report-mail",
    async handle(payload) {
      if (refusing) throw new PermanentJobError("550 mailbox unavailable");
      carried.push(payload);
    },
  });
});
afterAll(() => server?.stop());

const it = (name: string, body: () => Promise<void>) =>
  test.skipIf(!run)(name, () => withScreenshots(name, () => pages.splice(0), body), 120_000);

async function deadJob(payload: string): Promise<number> {
  const id = (await inTransaction(server.app.storage, (scope) => enqueueJob(scope, "report-mail", payload)))!;
  await waitFor(
    async () =>
      (await server.app.db.selectFrom("jobs").select("state").where("id", "=", id).executeTakeFirst())?.state ===
      "dead",
    5000,
    "the job to be dead",
  );
  return id;
}

describe("web app: the admin status section", () => {
  it("shows this node ready and the dead jobs; an admin retries one and drops another", async () => {
    const first = await deadJob("first");
    const second = await deadJob("second");
    const admin = await makeUser(server.app, { isAdmin: true });
    const { page, context } = await newPerson(b!.browser, server.url);
    pages.push(page);
    await signInThroughForm(page, admin.email!, admin.password);
    await page.goto("/admin");
    await page.getByRole("heading", { level: 2, name: "Instance status" }).waitFor();

    // the node serving the page, as the database records it
    const nodes = page.getByRole("table");
    await page.getByRole("heading", { level: 2, name: "Nodes" }).waitFor();
    const row = nodes.getByRole("row").filter({ has: page.getByRole("rowheader") });
    await expect(row.count()).resolves.toBe(1);
    await expect(row.getByRole("cell").nth(1).textContent()).resolves.toBe("Ready");

    const queue = page.getByRole("region", { name: "Job queue" });
    const figure = (label: string) =>
      queue
        .locator("dl.figures div")
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator("dd");
    await expect(figure("Dead").textContent()).resolves.toBe("2");
    const deadList = queue.getByRole("list", { name: "Dead jobs" });
    await deadList.getByRole("heading", { level: 3, name: `Job ${first}: report-mail` }).waitFor();
    await expect(deadList.getByText("550 mailbox unavailable").count()).resolves.toBe(2);
    await expectAccessible(page);

    refusing = false;
    await queue
      .getByRole("group", { name: `Actions for job ${first}` })
      .getByRole("button", { name: "Retry" })
      .click();
    await queue
      .getByRole("status")
      .filter({ hasText: `Job ${first} queued again.` })
      .waitFor();
    await waitFor(() => carried.includes("first"), 5000, "the retried job to run");

    await queue
      .getByRole("group", { name: `Actions for job ${second}` })
      .getByRole("button", { name: "Drop" })
      .click();
    const dialog = page.getByRole("dialog", { name: `Drop job ${second}` });
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Drop" }).click();
    await queue
      .getByRole("status")
      .filter({ hasText: `Job ${second} dropped.` })
      .waitFor();
    await deadList.waitFor({ state: "detached" });
    await expect(figure("Dead").textContent()).resolves.toBe("0");
    expect(carried).not.toContain("second");
    expect(await server.app.db.selectFrom("jobs").select("id").where("id", "=", second).execute()).toEqual([]);

    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
