import { defineService, type App } from "../../app";
import { Mailer, type MailMessage } from "../../lib/mail";

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

/** Sends MSG without making the request wait for the mail server. */
export const sendMail = (app: App, msg: MailMessage): void => mailerFor(app).sendLater(msg);

export function verificationMail(app: App, to: string, code: string, token: string): MailMessage {
  const link = `${app.config.baseUrl}/auth/verify-email?token=${token}`;
  return {
    to,
    subject: "Confirm your e-mail address",
    text: `Your confirmation code is ${code}.\n\nOr open this link: ${link}\n\nThe code and the link work for 24 hours. If you did not sign up, ignore this message.\n`,
    logFields: { kind: "email-verification", code, link },
  };
}

/** To an address that already has an account, in place of a sign-up confirmation. */
export function registrationAttemptMail(app: App, to: string): MailMessage {
  const base = app.config.baseUrl;
  return {
    to,
    subject: "Someone tried to sign up with your address",
    text: `Someone tried to create a new account with this e-mail address, which already has an account here.\n\nIf it was you, sign in at ${base}/ or, if you forgot your password, reset it at ${base}/auth/forgot-password\n\nIf it was not you, ignore this message; nothing has changed.\n`,
    logFields: { kind: "registration-attempt" },
  };
}

export function passwordResetMail(app: App, to: string, token: string): MailMessage {
  const link = `${app.config.baseUrl}/auth/reset-password?token=${token}`;
  return {
    to,
    subject: "Reset your password",
    text: `To choose a new password, open this link within an hour:\n${link}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n`,
    logFields: { kind: "password-reset", token, link },
  };
}

export function loginCodeMail(to: string, code: string): MailMessage {
  return {
    to,
    subject: `Your sign-in code: ${code}`,
    text: `Your sign-in code is ${code}. It works for 10 minutes.\n\nIf you did not try to sign in, change your password.\n`,
    logFields: { kind: "login-code", code },
  };
}
