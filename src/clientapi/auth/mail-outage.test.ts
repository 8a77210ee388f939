import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { startTestSmtp } from "../../testing/smtp";
import { makeUser } from "../../testing/fixtures";
import { waitFor } from "../../testing/wait";

/*
 * A mail asked for while the SMTP server is down: the request is answered as always, and the
 * mail arrives, once, after the server is back (its first retry comes within the job queue's
 * first backoff).
 */

// retries wait for real time on a loaded machine
setDefaultTimeout(60_000);

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let server: TestServer;
beforeAll(async () => {
  smtp = await startTestSmtp({ starttls: false });
  server = await startTestServer({
    "smtp.host": "127.0.0.1",
    "smtp.port": smtp.port,
    "smtp.from": "Social <no-reply@social.test>",
  });
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
});

test("a password reset requested while SMTP is down is answered, and mailed once SMTP is back", async () => {
  const user = await makeUser(server.app);
  const port = smtp.port;
  await smtp.stop();

  const res = await new TestClient(server.url).post("/api/auth/password/forgot", { email: user.email });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ sent: true });
  // the first attempt meets a closed port
  await Bun.sleep(1_000);

  smtp = await startTestSmtp({ starttls: false, port });
  const [mail] = await smtp.waitFor(1, 20_000);
  expect(mail!.to).toEqual([user.email!]);
  expect(mail!.subject).toBe("Reset your password");
  const token = mail!.text.match(/token=([A-Za-z0-9_-]+)/)?.[1];
  expect(token).toBeString();

  // once: nothing more comes after it was taken
  await Bun.sleep(1_500);
  expect(smtp.received).toHaveLength(1);

  // and the link works
  const reset = await new TestClient(server.url).post("/api/auth/password/reset", {
    token,
    newPassword: "a new long password",
  });
  expect(reset.status).toBe(200);
  await waitFor(
    async () => (await new TestClient(server.url).login(user.email!, "a new long password")).status === 200,
    5_000,
    "sign-in with the new password",
  );
});

test("a mail the SMTP server refuses for good (5xx to RCPT TO) is dead at once, listed for an operator", async () => {
  const refusing = await startTestSmtp({ starttls: false, rejectRcpt: true });
  const node = await startTestServer({ "smtp.host": "127.0.0.1", "smtp.port": refusing.port });
  try {
    const user = await makeUser(node.app);
    const res = await new TestClient(node.url).post("/api/auth/password/forgot", { email: user.email });
    expect(res.status).toBe(200);
    const dead = await waitFor(
      () =>
        node.app.db
          .selectFrom("jobs")
          .selectAll()
          .where("kind", "=", "mail")
          .where("state", "=", "dead")
          .executeTakeFirst(),
      10_000,
      "the mail job to be dead",
    );
    expect(dead.attempts).toBe(1);
    expect(dead.last_error).toContain("550");
    expect(refusing.received).toHaveLength(0);
  } finally {
    await node.stop();
    await refusing.stop();
  }
});
