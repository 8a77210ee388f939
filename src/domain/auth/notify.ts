import { defineService, type App } from "../../app";
import { Mailer, type MailMessage } from "../../lib/mail";
import type { Scope } from "../../db/transaction";
import { PermanentJobError, enqueueJob, type JobHandler, type JsonValue } from "../../jobs/queue";
import type { ServerText } from "../users/language";

/** The instance's mailer: SMTP when smtp.host is set, else the server log. */
export const mailerService = defineService("auth:mailer", (app) => {
  const c = app.config;
  const mailer = new Mailer(
    c["smtp.host"]
      ? {
          host: c["smtp.host"],
          port: c["smtp.port"],
          user: c["smtp.user"],
          password: c["smtp.password"],
          from: c["smtp.from"],
        }
      : null,
    app.log,
  );
  app.onClose(() => mailer.close());
  return mailer;
});

export const mailerFor = (app: App): Mailer => app.services.get(mailerService);

/** The job kind of one outgoing mail (its payload: MailJob). */
export const MAIL_JOB = "mail";

type MailJob = Pick<MailMessage, "to" | "subject" | "text">;

/**
 * Sends MSG once SCOPE's transaction commits. By SMTP it goes through the job queue, so a mail
 * server that is down or slow delays the mail (retried with backoff) and never loses it or
 * holds up the request. Without an SMTP server the message is written to the server log as
 * the transaction commits: a log line cannot fail, and whoever reads the log for a code sees
 * it by the time the request is answered.
 */
export async function sendMail(app: App, scope: Scope, msg: MailMessage): Promise<void> {
  const mailer = mailerFor(app);
  if (!mailer.usesSmtp) {
    scope.afterCommit(() => mailer.send(msg));
    return;
  }
  const job: MailJob = { to: msg.to, subject: msg.subject, text: msg.text };
  await enqueueJob(scope, MAIL_JOB, job);
}

/** A refusal no retry changes: the server would not take this recipient (5xx to RCPT TO) or this message (5xx after DATA). */
function refusedForGood(err: unknown): boolean {
  const { responseCode, command } = (err ?? {}) as { responseCode?: number; command?: string };
  return typeof responseCode === "number" && responseCode >= 500 && (command === "RCPT TO" || command === "DATA");
}

const isMailJob = (p: JsonValue): p is MailJob =>
  typeof p === "object" &&
  p !== null &&
  !Array.isArray(p) &&
  typeof p.to === "string" &&
  typeof p.subject === "string" &&
  typeof p.text === "string";

/**
 * Delivers one queued mail through the instance's mailer. A lost SMTP connection or a
 * temporary refusal (4xx) retries; a permanent refusal of the recipient or message is dead at
 * once. A mail may go twice in rare cases (a node killed after the server took it, before the
 * job was marked done): a second copy of a code or link is harmless, a lost one is not.
 */
export const mailJobHandler: JobHandler = {
  kind: MAIL_JOB,
  // with the default backoff the attempts span about as long as a reset link works
  maxAttempts: 11,
  async handle(payload, { app }) {
    if (!isMailJob(payload)) throw new PermanentJobError("not a mail: to, subject and text are required");
    try {
      await mailerFor(app).send(payload);
    } catch (err) {
      if (refusedForGood(err))
        throw new PermanentJobError(err instanceof Error ? err.message : String(err), { cause: err });
      throw err;
    }
  },
};

/** The confirmation mail of a new address: a code to type and a link to open (T: the person's language). */
export function verificationMail(app: App, t: ServerText, to: string, code: string, token: string): MailMessage {
  const link = `${app.config.baseUrl}/auth/verify-email?token=${token}`;
  return {
    to,
    subject: t("mail.verify.subject"),
    text: t("mail.verify.text", { code, link }),
    logFields: { kind: "email-verification", code, link },
  };
}

/** To an address that already has an account, in place of a sign-up confirmation. */
export function registrationAttemptMail(app: App, t: ServerText, to: string): MailMessage {
  const base = app.config.baseUrl;
  return {
    to,
    subject: t("mail.signUpAttempt.subject"),
    text: t("mail.signUpAttempt.text", { signIn: `${base}/`, reset: `${base}/auth/forgot-password` }),
    logFields: { kind: "registration-attempt" },
  };
}

export function passwordResetMail(app: App, t: ServerText, to: string, token: string): MailMessage {
  const link = `${app.config.baseUrl}/auth/reset-password?token=${token}`;
  return {
    to,
    subject: t("mail.passwordReset.subject"),
    text: t("mail.passwordReset.text", { link }),
    logFields: { kind: "password-reset", token, link },
  };
}

export function loginCodeMail(t: ServerText, to: string, code: string): MailMessage {
  return {
    to,
    subject: t("mail.signInCode.subject", { code }),
    text: t("mail.signInCode.text", { code }),
    logFields: { kind: "login-code", code },
  };
}
