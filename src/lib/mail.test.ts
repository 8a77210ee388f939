import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Mailer, type SmtpSettings } from "./mail";
import { createLogger, silentLogger } from "./log";
import { startTestSmtp } from "../testing/smtp";

let starttls: Awaited<ReturnType<typeof startTestSmtp>>;
let loginOnly: Awaited<ReturnType<typeof startTestSmtp>>;
beforeAll(async () => {
  starttls = await startTestSmtp({ user: "mailer", password: "s3cret" });
  loginOnly = await startTestSmtp({ user: "mailer", password: "s3cret", mechanisms: ["LOGIN"], starttls: false });
});
afterAll(async () => {
  await starttls.stop();
  await loginOnly.stop();
});

const settings = (port: number, password = "s3cret"): SmtpSettings => ({
  host: "127.0.0.1",
  port,
  user: "mailer",
  password,
  from: "Social <no-reply@social.test>",
  timeoutMs: 3000,
  allowInvalidCertificates: true,
});

/** Sends one message through a fresh Mailer and closes its pool. */
async function sendOnce(s: SmtpSettings, msg: { to: string; subject: string; text: string }) {
  const mailer = new Mailer(s, silentLogger);
  try {
    await mailer.send(msg);
  } finally {
    mailer.close();
  }
}

describe("SMTP delivery (nodemailer against smtp-server)", () => {
  test("STARTTLS before AUTH PLAIN, envelope, non-ASCII headers and body", async () => {
    const longSubject = "Привет, это очень длинная тема письма, которая не помещается в одну строку заголовка "
      .repeat(2)
      .trim();
    await sendOnce(settings(starttls.port), {
      to: "anna@example.test",
      subject: longSubject + "\r\nBcc: evil@x.test",
      text: "Code 123456\n.line starting with a dot\n",
    });
    const [mail] = await starttls.waitFor(1);
    expect(mail!.secure).toBe(true);
    expect(mail!.auth).toBe("PLAIN mailer");
    expect(mail!.from).toBe("no-reply@social.test");
    expect(mail!.to).toEqual(["anna@example.test"]);
    expect(mail!.data).toContain("From: Social <no-reply@social.test>");
    expect(mail!.data).toContain("To: anna@example.test");
    // the CRLF in the subject cannot start a header of its own
    expect(mail!.data).not.toMatch(/^Bcc:/m);
    expect(mail!.headers.has("bcc")).toBe(false);
    expect(mail!.subject).toBe(`${longSubject} Bcc: evil@x.test`);
    // RFC 5322: no line over 998 octets, and encoded words folded to 78-character lines
    const head = mail!.data.split("\r\n\r\n")[0]!;
    for (const line of head.split("\r\n")) expect(line.length).toBeLessThanOrEqual(78);
    expect(mail!.text).toBe("Code 123456\n.line starting with a dot\n");
  });

  test("AUTH LOGIN when that is all the server offers", async () => {
    await sendOnce(settings(loginOnly.port), { to: "bob@example.test", subject: "Hi", text: "hello" });
    const [mail] = await loginOnly.waitFor(1);
    expect(mail!.secure).toBe(false);
    expect(mail!.auth).toBe("LOGIN mailer");
    expect(mail!.text.trimEnd()).toBe("hello");
  });

  test("a refused login fails with the server's reply", async () => {
    await expect(
      sendOnce(settings(starttls.port, "wrong"), { to: "x@example.test", subject: "s", text: "t" }),
    ).rejects.toThrow(/535/);
  });

  test("a refused recipient fails with the server's reply", async () => {
    const strict = await startTestSmtp({ rejectRcpt: true });
    try {
      const s = { ...settings(strict.port), user: "" };
      await expect(sendOnce(s, { to: "nobody@example.test", subject: "s", text: "t" })).rejects.toThrow(/550/);
    } finally {
      await strict.stop();
    }
  });

  test("a pooled Mailer delivers a burst over reused connections", async () => {
    const mailer = new Mailer(settings(starttls.port), silentLogger);
    const before = starttls.received.length;
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          mailer.send({ to: `p${i}@example.test`, subject: `n${i}`, text: `body ${i}` }),
        ),
      );
    } finally {
      mailer.close();
    }
    const got = starttls.received.slice(before);
    expect(got.map((m) => m.subject).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}`).sort());
  });

  test("nothing listening fails instead of hanging", async () => {
    const gone = await startTestSmtp();
    const port = gone.port;
    await gone.stop();
    await expect(sendOnce(settings(port), { to: "x@example.test", subject: "s", text: "t" })).rejects.toThrow();
  });

  test("without SMTP the Mailer writes the message and its code to the log", async () => {
    const lines: string[] = [];
    const mailer = new Mailer(null, createLogger({ sink: (l) => lines.push(l) }));
    expect(mailer.usesSmtp).toBe(false);
    void mailer.send({
      to: "c@example.test",
      subject: "Code",
      text: "Your code is 654321",
      logFields: { code: "654321" },
    });
    // written synchronously, before the promise settles
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", to: "c@example.test", code: "654321" });
  });
});
