import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import type { Logger } from "./log";

/** One plain-text e-mail. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** fields written to the server log when no SMTP server is configured (codes, links) */
  logFields?: Record<string, unknown>;
}

export interface SmtpSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  from: string;
  /** EHLO name; defaults to "localhost" */
  heloName?: string;
  timeoutMs?: number;
  /** accept self-signed certificates (tests, private relays) */
  allowInvalidCertificates?: boolean;
}

/**
 * Sends mail by SMTP when a server is configured; otherwise writes the message (with its
 * code or link) to the server log, so a fresh instance works without a mail setup.
 */
export class Mailer {
  constructor(
    private readonly smtp: SmtpSettings | null,
    private readonly log: Logger,
  ) {}

  /** True when messages go out by SMTP rather than to the log. */
  get usesSmtp(): boolean {
    return this.smtp !== null;
  }

  /**
   * Delivers MSG. In log mode the record is written synchronously before the returned
   * promise settles, so a caller that does not await still has it logged.
   */
  async send(msg: MailMessage): Promise<void> {
    if (!this.smtp) {
      this.log.info("mail (no smtp.host configured)", { to: msg.to, subject: msg.subject, ...msg.logFields, text: msg.text });
      return;
    }
    await sendSmtp(this.smtp, msg);
  }

  /** Sends in the background; a failure is logged and never reaches the request that caused it. */
  sendLater(msg: MailMessage): void {
    this.send(msg).catch((err) => this.log.error("mail delivery failed", { to: msg.to, subject: msg.subject, error: String(err) }));
  }
}

/** Reads SMTP replies (possibly multi-line: "250-..." then "250 ...") from a socket. */
class ReplyReader {
  private buffer = "";
  private waiting: Array<{ resolve: (r: { code: number; lines: string[] }) => void; reject: (e: Error) => void }> = [];
  private replies: Array<{ code: number; lines: string[] }> = [];
  private pending: string[] = [];
  private failure: Error | null = null;

  attach(socket: Socket | TLSSocket): void {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.feed(chunk));
    socket.on("error", (err) => this.fail(err));
    socket.on("close", () => this.fail(new Error("SMTP connection closed")));
  }

  detach(socket: Socket | TLSSocket): void {
    socket.removeAllListeners("data");
    socket.removeAllListeners("error");
    socket.removeAllListeners("close");
  }

  next(): Promise<{ code: number; lines: string[] }> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      this.pending.push(line.slice(4));
      if (line.length < 4 || line[3] !== "-") {
        const reply = { code: Number(line.slice(0, 3)), lines: this.pending };
        this.pending = [];
        const w = this.waiting.shift();
        if (w) w.resolve(reply);
        else this.replies.push(reply);
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }
}

const dotStuff = (text: string) => text.replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");

/** Headers are one line each: strip CR/LF so a subject or address cannot inject headers. */
const headerValue = (v: string) => v.replace(/[\r\n]+/g, " ");

/** RFC 2047 encoding for non-ASCII header text. */
const encodeHeader = (v: string) => (/^[\x20-\x7e]*$/.test(v) ? v : `=?UTF-8?B?${Buffer.from(v, "utf8").toString("base64")}?=`);

export function formatMessage(from: string, msg: MailMessage, now = new Date()): string {
  const headers = [
    `From: ${headerValue(from)}`,
    `To: ${headerValue(msg.to)}`,
    `Subject: ${encodeHeader(headerValue(msg.subject))}`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <${crypto.randomUUID()}@${headerValue(from.split("@")[1]?.replace(/>.*/, "") || "localhost")}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: base64",
  ];
  const body = Buffer.from(msg.text, "utf8").toString("base64").replace(/.{76}/g, "$&\r\n");
  return `${headers.join("\r\n")}\r\n\r\n${dotStuff(body)}`;
}

/**
 * A small SMTP client: EHLO, STARTTLS when offered (port 465 speaks TLS from the start),
 * AUTH PLAIN or LOGIN when a user is set, then MAIL FROM / RCPT TO / DATA / QUIT.
 */
export async function sendSmtp(s: SmtpSettings, msg: MailMessage): Promise<void> {
  const timeoutMs = s.timeoutMs ?? 15_000;
  const from = s.from || `no-reply@${s.host}`;
  const envelopeFrom = (from.match(/<([^>]+)>/)?.[1] ?? from).trim();
  const implicitTls = s.port === 465;
  const tlsOpts = { servername: s.host, rejectUnauthorized: !s.allowInvalidCertificates };
  let socket: Socket | TLSSocket = implicitTls ? tlsConnect({ host: s.host, port: s.port, ...tlsOpts }) : netConnect({ host: s.host, port: s.port });
  let reader = new ReplyReader();
  reader.attach(socket);
  const timer = setTimeout(() => socket.destroy(new Error(`SMTP timed out after ${timeoutMs} ms`)), timeoutMs);

  const expect = async (ok: number[], what: string) => {
    const reply = await reader.next();
    if (!ok.includes(reply.code)) throw new Error(`SMTP ${what} refused: ${reply.code} ${reply.lines.join(" ")}`);
    return reply;
  };
  const command = async (line: string, ok: number[], what = line.split(" ")[0]!) => {
    socket.write(line + "\r\n");
    return expect(ok, what);
  };

  try {
    await expect([220], "greeting");
    const helo = s.heloName ?? "localhost";
    let ehlo = await command(`EHLO ${helo}`, [250]);
    const offers = (name: string) => ehlo.lines.some((l) => l.toUpperCase().startsWith(name));
    if (!implicitTls && offers("STARTTLS")) {
      await command("STARTTLS", [220]);
      reader.detach(socket);
      const plain = socket;
      socket = await new Promise<TLSSocket>((resolve, reject) => {
        const secure = tlsConnect({ socket: plain as Socket, ...tlsOpts }, () => resolve(secure));
        secure.once("error", reject);
      });
      reader = new ReplyReader();
      reader.attach(socket);
      ehlo = await command(`EHLO ${helo}`, [250]);
    }
    if (s.user) {
      const authLine = ehlo.lines.find((l) => l.toUpperCase().startsWith("AUTH")) ?? "";
      if (/\bPLAIN\b/i.test(authLine) || !/\bLOGIN\b/i.test(authLine)) {
        const token = Buffer.from(`\0${s.user}\0${s.password}`).toString("base64");
        await command(`AUTH PLAIN ${token}`, [235], "AUTH PLAIN");
      } else {
        await command("AUTH LOGIN", [334], "AUTH LOGIN");
        await command(Buffer.from(s.user).toString("base64"), [334], "AUTH LOGIN user");
        await command(Buffer.from(s.password).toString("base64"), [235], "AUTH LOGIN password");
      }
    }
    await command(`MAIL FROM:<${envelopeFrom}>`, [250], "MAIL FROM");
    await command(`RCPT TO:<${headerValue(msg.to)}>`, [250, 251], "RCPT TO");
    await command("DATA", [354]);
    socket.write(formatMessage(from, msg) + "\r\n.\r\n");
    await expect([250], "message");
    socket.write("QUIT\r\n");
    await reader.next().catch(() => undefined);
  } finally {
    clearTimeout(timer);
    reader.detach(socket);
    socket.on("error", () => undefined);
    socket.end();
  }
}
