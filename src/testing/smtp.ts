import { readFileSync } from "node:fs";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A message as the test SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** "PLAIN user" / "LOGIN user" / null */
  auth: string | null;
  /** whether the session had switched to TLS (STARTTLS or implicit) when the message came */
  secure: boolean;
  /** the raw message as sent */
  data: string;
  /** headers and body decoded the way a mail client would */
  subject: string;
  text: string;
  headers: Map<string, unknown>;
}

// a self-signed certificate for the name hook.test (certificate, then key), shared with the webhook TLS tests
const pem = readFileSync(join(import.meta.dir, "..", "botapi", "fixtures", "hook-test-tls.pem"), "utf8");

/**
 * A real SMTP server (nodemailer's smtp-server) on a loopback port: STARTTLS with a
 * self-signed certificate (unless `starttls: false`), AUTH against one user with the
 * given mechanisms, and every message kept, parsed.
 */
export async function startTestSmtp(
  opts: {
    user?: string;
    password?: string;
    mechanisms?: Array<"PLAIN" | "LOGIN">;
    starttls?: boolean;
    rejectRcpt?: boolean;
    /** listen on this port (a server started again where the instance expects it); a free one by default */
    port?: number;
  } = {},
) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    key: pem,
    cert: pem,
    disabledCommands: opts.starttls === false ? ["STARTTLS"] : [],
    authMethods: opts.mechanisms ?? ["PLAIN", "LOGIN"],
    authOptional: !opts.user,
    // the client must not send credentials in the clear when the server offers STARTTLS
    allowInsecureAuth: opts.starttls === false,
    logger: false,
    onAuth(auth, session, done) {
      if (auth.username === opts.user && auth.password === opts.password)
        return done(null, { user: `${auth.method} ${auth.username}` });
      done(Object.assign(new Error("Authentication failed"), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, done) {
      if (opts.rejectRcpt) return done(Object.assign(new Error("no such user"), { responseCode: 550 }));
      done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks);
        const parsed = await simpleParser(raw);
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          auth: (session.user as string | undefined) ?? null,
          secure: session.secure,
          data: raw.toString("utf8"),
          subject: parsed.subject ?? "",
          text: parsed.text ?? "",
          headers: parsed.headers,
        });
        done();
      });
    },
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    /** Resolves once at least COUNT messages arrived (fails after a few seconds). */
    async waitFor(count: number, timeoutMs = 3000): Promise<ReceivedMail[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, got ${received.length}`);
        await Bun.sleep(20);
      }
      return received;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
