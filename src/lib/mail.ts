import type { Transporter } from "nodemailer";
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
 * nodemailer does the SMTP side: STARTTLS whenever offered (port 465 speaks TLS from the
 * start), AUTH PLAIN or LOGIN, RFC 2047 headers folded to legal lengths, and a small pool of
 * reused connections so a burst of sign-up mails does not open one connection each.
 */
export function createSmtpTransport(s: SmtpSettings): Transporter {
  const timeoutMs = s.timeoutMs ?? 15_000;
  // loaded on first use: every CLI command imports this module, few send mail (a start need not load it)
  const { createTransport } = require("nodemailer") as typeof import("nodemailer");
  return createTransport({
    host: s.host,
    port: s.port,
    secure: s.port === 465,
    auth: s.user ? { user: s.user, pass: s.password } : undefined,
    name: s.heloName ?? "localhost",
    tls: { rejectUnauthorized: !s.allowInvalidCertificates },
    pool: true,
    maxConnections: 2,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

/**
 * Sends mail by SMTP when a server is configured; otherwise writes the message (with its
 * code or link) to the server log, so a fresh instance works without a mail setup.
 */
export class Mailer {
  private transport: Transporter | null = null;

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
      this.log.info("mail (no smtp.host configured)", {
        to: msg.to,
        subject: msg.subject,
        ...msg.logFields,
        text: msg.text,
      });
      return;
    }
    this.transport ??= createSmtpTransport(this.smtp);
    await this.transport.sendMail({
      from: this.smtp.from || `no-reply@${this.smtp.host}`,
      to: msg.to,
      subject: msg.subject,
      text: msg.text,
    });
  }

  /** Closes pooled SMTP connections (server shutdown, tests). */
  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
