import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { startTestSmtp } from "../../testing/smtp";
import { signedInClient } from "../../testing/fixtures";
import { postAs } from "../../testing/posts";
import { waitFor } from "../../testing/wait";
import { runCleanup } from "../../ops";
import { inTransaction } from "../../db/transaction";
import { enqueueJob } from "../../jobs/queue";
import type { TestClient } from "../../testing/client";
import type { UserRow } from "../users/table";
import { EMAIL_DIGEST_JOB } from "./email-digest";

/*
 * The e-mail digest of a person away: opted in, unseen for mail.digestAfterHours, something
 * unread since they were last seen, SMTP configured: one mail, once per absence.
 */

// mail goes through the job queue's worker in real time
setDefaultTimeout(60_000);

const HOUR_MS = 3_600_000;

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let server: TestServer;
type Person = { user: UserRow; client: TestClient };
let alice: Person;
let bob: Person;
let carol: Person;
let dave: Person;
let erin: Person;

beforeAll(async () => {
  smtp = await startTestSmtp({ starttls: false });
  server = await startTestServer({ "smtp.host": "127.0.0.1", "smtp.port": smtp.port });
  [alice, bob, carol, dave, erin] = await Promise.all([
    signedInClient(server, { displayName: "Alice Away" }),
    signedInClient(server, { displayName: "Bob Writer" }),
    signedInClient(server),
    signedInClient(server),
    signedInClient(server),
  ]);
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
});

/** Bob opens a chat with PERSON and sends TEXTS. */
async function bobWrites(person: Person, ...texts: string[]): Promise<void> {
  const opened = await bob.client.post(`/api/social/users/${person.user.username}/message`, {});
  expect(opened.status).toBe(200);
  for (const content of texts)
    expect((await bob.client.post(`/api/social/messages/${opened.body.data.conversationId}`, { content })).status).toBe(
      200,
    );
}

/** Makes PERSON last seen before everything the test wrote since they signed in. */
const seenBefore = (person: Person, at: number) =>
  server.app.db.updateTable("sessions").set({ last_seen_at: at }).where("user_id", "=", person.user.id).execute();

const digestsTo = (person: Person) => smtp.received.filter((m) => m.to.includes(person.user.email!));

describe("settings", () => {
  test("the digest is off until switched on; push settings are left as they are", async () => {
    const before = await erin.client.get("/api/account/notification-settings");
    expect(before.status).toBe(200);
    expect(before.body.data.email).toEqual({ digest: false });
    const on = await erin.client.patch("/api/account/notification-settings", { email: { digest: true } });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ push: before.body.data.push, email: { digest: true } });
    const pushOnly = await erin.client.patch("/api/account/notification-settings", { push: { messages: false } });
    expect(pushOnly.body.data.email).toEqual({ digest: true });
    expect(pushOnly.body.data.push.messages).toBe(false);
    const bad = await erin.client.patch("/api/account/notification-settings", { email: { digest: "yes" } });
    expect(bad.status).toBe(422);
    expect(bad.body.success).toBe(false);
    expect((await erin.client.get("/api/account/notification-settings")).body.data.email).toEqual({ digest: true });
  });
});

describe("digest", () => {
  test("one mail with each chat's counts and the mentions, once per absence, only to who opted in and is away", async () => {
    const start = server.app.clock.now() - 1_000;
    for (const p of [alice, dave])
      expect(
        (await p.client.patch("/api/account/notification-settings", { email: { digest: true } })).body.data.email,
      ).toEqual({ digest: true });
    // erin opted in above and has nothing unread; carol has unread messages but never opted in
    await seenBefore(alice, start);
    await seenBefore(carol, start);
    await seenBefore(dave, start);
    await seenBefore(erin, start);

    await bobWrites(alice, "First of two", "Are you coming to the meeting tomorrow at ten?");
    await bobWrites(carol, "Hello Carol");
    await bobWrites(dave, "Hello Dave");
    await postAs(bob.client, `Look at this @${alice.user.username}, a mention`);
    await waitFor(
      () =>
        server.app.db
          .selectFrom("notifications")
          .select("id")
          .where("recipient_id", "=", alice.user.id)
          .where("type", "=", "mention")
          .executeTakeFirst(),
      10_000,
      "the mention's notification",
    );

    // not away yet: nothing
    expect((await runCleanup(server.app, "mail:digests")).result).toBe(0);

    server.clock.advance(25 * HOUR_MS);
    // dave comes back (his first request after the pause is his visit)
    expect((await dave.client.get("/api/account/notification-settings")).status).toBe(200);

    const run = await runCleanup(server.app, "mail:digests");
    expect(run.ok).toBe(true);
    expect(run.result).toBe(1);
    const [mail] = await smtp.waitFor(1, 20_000);
    expect(mail!.to).toEqual([alice.user.email!]);
    expect(mail!.subject).toContain("2 unread messages in 1 chat and 1 mention");
    expect(mail!.text).toContain("Bob Writer: 2 messages");
    expect(mail!.text).toContain('"Are you coming to the meeting tomorrow at ten?"');
    expect(mail!.text).toContain('Bob Writer: "Look at this @');
    expect(mail!.text).toContain(`${server.app.config.baseUrl}/dashboard/messages`);
    expect(mail!.text).toContain(`${server.app.config.baseUrl}/notifications`);
    expect(mail!.text).toContain('"E-mail digest when away"');
    expect(mail!.text).toContain(`${server.app.config.baseUrl}/settings`);

    // a second look finds this absence told: nothing queued, nothing sent
    expect((await runCleanup(server.app, "mail:digests")).result).toBe(0);
    // a digest job run again (another node, a retry) sends nothing either
    const again = await inTransaction(server.app.storage, (scope) =>
      enqueueJob(scope, EMAIL_DIGEST_JOB, { userId: alice.user.id }),
    );
    await waitFor(
      () =>
        server.app.db
          .selectFrom("jobs")
          .select("id")
          .where("id", "=", again!)
          .where("state", "=", "done")
          .executeTakeFirst(),
      10_000,
      "the repeated digest job to finish",
    );
    await Bun.sleep(1_000);
    expect(smtp.received).toHaveLength(1);
    expect(digestsTo(carol)).toHaveLength(0);
    expect(digestsTo(dave)).toHaveLength(0);
    expect(digestsTo(erin)).toHaveLength(0);

    // new messages while still away: this absence was told, so no second mail
    await bobWrites(alice, "One more");
    expect((await runCleanup(server.app, "mail:digests")).result).toBe(0);

    // alice comes back, reads nothing, and goes away again: the next digest holds only what came after her visit
    expect((await alice.client.get("/api/account/notification-settings")).status).toBe(200);
    server.clock.advance(1_000);
    await bobWrites(alice, "After your visit");
    server.clock.advance(25 * HOUR_MS);
    expect((await runCleanup(server.app, "mail:digests")).result).toBe(1);
    await smtp.waitFor(2, 20_000);
    const second = digestsTo(alice)[1]!;
    expect(second.subject).toContain("1 unread message in 1 chat while you were away");
    expect(second.text).toContain('"After your visit"');
    expect(second.text).not.toContain("Are you coming");
    expect(smtp.received).toHaveLength(2);
  });
});

test("without SMTP nothing is queued", async () => {
  const node = await startTestServer();
  try {
    const p = await signedInClient(node);
    await p.client.patch("/api/account/notification-settings", { email: { digest: true } });
    const writer = await signedInClient(node);
    const opened = await writer.client.post(`/api/social/users/${p.user.username}/message`, {});
    await node.app.db
      .updateTable("sessions")
      .set({ last_seen_at: node.app.clock.now() - 1_000 })
      .where("user_id", "=", p.user.id)
      .execute();
    await writer.client.post(`/api/social/messages/${opened.body.data.conversationId}`, { content: "hi" });
    node.clock.advance(25 * HOUR_MS);
    expect((await runCleanup(node.app, "mail:digests")).result).toBe(0);
    const jobs = await node.app.db.selectFrom("jobs").select("id").where("kind", "=", EMAIL_DIGEST_JOB).execute();
    expect(jobs).toHaveLength(0);
  } finally {
    await node.stop();
  }
});
