import type { App } from "../../app";
import { AppError, fieldError, forbidden, validationError } from "../../lib/errors";
import { hashPassword } from "../../lib/crypto";
import { createUser, findUserByEmail, findUserByUsername, newUserProblems } from "../users/service";
import { assertRulesAccepted } from "../instance/identity";
import { RESERVED_USERNAMES } from "../users/system";
import { solveCaptcha } from "./captcha";
import { checkInvite, consumeInvite, returnInviteUse } from "./invites";
import { registrationAttemptMail, sendMail } from "./notify";
import { inTransaction } from "../../db/transaction";
import { sendEmailVerification } from "./verification";
import { textFor } from "../users/language";
import type { UserRow } from "../users/table";
import type { Language } from "../../locales/languages";

export interface RegistrationInput {
  email: string;
  username: string;
  password: string;
  displayName?: string;
  captchaId?: string;
  captchaAnswer?: string;
  inviteCode?: string;
  /** true when the person accepted the instance's rules (required while there are any) */
  acceptRules?: boolean;
  /** the language the request asked for (Accept-Language), when it is one the server writes in */
  language?: Language | null;
}

/**
 * Who may sign up, per config `registration` (closed, which invites do not open, is refused
 * before this): invite → a live invite code (INVITE_REQUIRED / INVITE_INVALID / INVITE_EXPIRED / INVITE_USED_UP);
 * captcha → a solved captcha (CAPTCHA_REQUIRED / CAPTCHA_FAILED), or a live invite code instead;
 * open → anyone, and a code given is ignored. Returns the invite code to use up, if any.
 */
async function admission(app: App, input: RegistrationInput): Promise<string | null> {
  const mode = app.config.registration;
  const now = app.clock.now();
  const code = input.inviteCode?.trim() || null;
  if (mode === "open" || mode === "closed") return null;
  if (code) {
    await checkInvite(app.db, now, code);
    return code;
  }
  if (mode === "invite")
    throw new AppError(400, "INVITE_REQUIRED", "This instance takes new accounts by invitation: send inviteCode");
  if (!input.captchaId || !input.captchaAnswer)
    throw new AppError(
      400,
      "CAPTCHA_REQUIRED",
      "Solve the captcha (GET /api/auth/captcha) and send captchaId and captchaAnswer",
    );
  if (!(await solveCaptcha(app.db, now, input.captchaId, input.captchaAnswer)))
    throw new AppError(400, "CAPTCHA_FAILED", "The captcha answer is wrong or expired; get a new captcha");
  return null;
}

const isEmailTaken = (err: unknown) =>
  err instanceof AppError && err.code === "VALIDATION_ERROR" && !!(err.details as any)?.fieldErrors?.email;

/**
 * Self-service sign-up. Answers the same whether or not the e-mail address has an account, so
 * the form cannot be used to find out who is registered: a new address gets its account and a
 * confirmation mail; a known one gets a mail saying someone tried to sign up with it (as a
 * password-reset request answers the same for every address). Usernames are public, so a
 * taken one is reported. The caller signs nobody in: the person signs in with the password
 * they chose, which works only if the account was made.
 */
export async function registerAccount(app: App, input: RegistrationInput): Promise<void> {
  if (app.config.registration === "closed") throw forbidden("Registration is closed on this instance");
  assertRulesAccepted(app, input.acceptRules);
  const email = input.email.trim();
  const problems = newUserProblems({ ...input, email });
  if (Object.keys(problems).length) throw validationError(problems);
  if (RESERVED_USERNAMES.has(input.username.toLowerCase())) throw fieldError("username", "is reserved");
  if (await findUserByUsername(app.db, input.username)) throw fieldError("username", "is taken");
  const inviteCode = await admission(app, input);

  // a known address uses up an invite too, so a second try with a one-use code reads the same
  if (inviteCode) await consumeInvite(app.db, app.clock.now(), inviteCode);
  const known = await findUserByEmail(app.db, email);
  if (known) return answerKnownAddress(app, known, input.password);
  try {
    const user = await createUser(app.db, app.clock.now(), {
      email,
      username: input.username,
      password: input.password,
      displayName: input.displayName,
      language: input.language ?? null,
    });
    await sendEmailVerification(app, user);
    await app.hooks.emit("user:created", { userId: user.id });
  } catch (err) {
    // a concurrent sign-up with this address won: from here on the address is a known one
    if (isEmailTaken(err)) {
      const winner = await findUserByEmail(app.db, email);
      return answerKnownAddress(
        app,
        winner ?? { email, disabled_at: null, language: input.language ?? null },
        input.password,
      );
    }
    // nobody was admitted (the username was taken in the meantime): the invite's use goes back
    if (inviteCode) await returnInviteUse(app.db, inviteCode);
    throw err;
  }
}

/** The mail to an address that has an account, in that account's language. */
async function answerKnownAddress(
  app: App,
  known: Pick<UserRow, "email" | "disabled_at" | "language">,
  password: string,
): Promise<void> {
  // as long as making an account takes: the password is hashed either way
  await hashPassword(password);
  const email = known.email;
  if (!email || known.disabled_at !== null) return;
  const t = await textFor(known.language);
  await inTransaction(app.storage, (scope) => sendMail(app, scope, registrationAttemptMail(app, t, email)));
}
