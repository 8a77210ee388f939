import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Mailer, sendSmtp } from "./mail";
import { startFakeSmtp } from "../testing/smtp";
import { createLogger } from "./log";
import { waitFor } from "../testing/wait";

let plain: Awaited<ReturnType<typeof startFakeSmtp>>;
let loginOnly: Awaited<ReturnType<typeof startFakeSmtp>>;
beforeAll(async () => {
  plain = await startFakeSmtp({ user: "mailer", password: "s3cret" });
  loginOnly = await startFakeSmtp({ user: "mailer", password: "s3cret", mechanisms: ["LOGIN"] });
});
afterAll(async () => {
  await plain.stop();
  await loginOnly.stop();
});

const settings = (port: number, password = "s3cret") => ({ host: "127.0.0.1", port, user: "mailer", password, from: "Social <no-reply@social.test>", timeoutMs: 3000 });

describe("SMTP client", () => {
  test("AUTH PLAIN, envelope, headers and a base64 UTF-8 body", async () => {
    await sendSmtp(settings(plain.port), { to: "anna@example.test", subject: "Привет\r\nBcc: evil@x.test", text: "Code 123456\n.line starting with a dot\n" });
    const [mail] = await plain.waitFor(1);
    expect(mail!.auth).toBe("PLAIN mailer s3cret");
    expect(mail!.from).toBe("no-reply@social.test");
    expect(mail!.to).toEqual(["anna@example.test"]);
    expect(mail!.data).toContain("From: Social <no-reply@social.test>");
    expect(mail!.data).toContain("To: anna@example.test");
    // the CRLF in the subject cannot start a header of its own
    expect(mail!.data).not.toMatch(/^Bcc:/m);
    expect(mail!.data).toContain("Subject: =?UTF-8?B?");
    expect(mail!.text).toBe("Code 123456\n.line starting with a dot\n");
  });

  test("AUTH LOGIN when that is all the server offers", async () => {
    await sendSmtp(settings(loginOnly.port), { to: "bob@example.test", subject: "Hi", text: "hello" });
    const [mail] = await loginOnly.waitFor(1);
    expect(mail!.auth).toBe("LOGIN mailer s3cret");
    expect(mail!.text).toBe("hello");
  });

  test("a refused login fails with the server's reply", async () => {
    await expect(sendSmtp(settings(plain.port, "wrong"), { to: "x@example.test", subject: "s", text: "t" })).rejects.toThrow(/AUTH PLAIN refused: 535/);
  });

  test("nothing listening fails instead of hanging", async () => {
    const gone = await startFakeSmtp();
    const port = gone.port;
    await gone.stop();
    await expect(sendSmtp(settings(port), { to: "x@example.test", subject: "s", text: "t" })).rejects.toThrow();
  });

  test("without SMTP the Mailer writes the message and its code to the log", async () => {
    const lines: string[] = [];
    const mailer = new Mailer(null, createLogger({ sink: (l) => lines.push(l) }));
    expect(mailer.usesSmtp).toBe(false);
    void mailer.send({ to: "c@example.test", subject: "Code", text: "Your code is 654321", logFields: { code: "654321" } });
    // written synchronously, before the promise settles
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", to: "c@example.test", code: "654321" });
  });

  test("sendLater logs a delivery failure instead of throwing", async () => {
    const lines: string[] = [];
    const mailer = new Mailer(settings(plain.port, "wrong"), createLogger({ sink: (l) => lines.push(l) }));
    mailer.sendLater({ to: "d@example.test", subject: "s", text: "t" });
    await waitFor(() => lines.length > 0, 3000, "a log line");
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", msg: "mail delivery failed", to: "d@example.test" });
  });
});
