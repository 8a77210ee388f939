import type { App } from "../../app";
import { AppError, fieldError, forbidden } from "../../lib/errors";
import { assertRulesAccepted } from "../instance/identity";
import { createUser } from "../users/service";
import { RESERVED_USERNAMES } from "../users/system";
import type { UserRow } from "../users/table";
import { solveCaptcha } from "./captcha";
import { sendEmailVerification } from "./verification";

export interface RegistrationInput {
  email: string;
  username: string;
  password: string;
  displayName?: string;
  captchaId?: string;
  captchaAnswer?: string;
  /** true when the person accepted the instance's rules (required while there are any) */
  acceptRules?: boolean;
}

/**
 * Self-service sign-up per config `registration`: closed → FORBIDDEN; the instance's rules
 * accepted when it has any (VALIDATION_ERROR on acceptRules); captcha → a solved
 * built-in captcha first (CAPTCHA_REQUIRED / CAPTCHA_FAILED); then the account is made
 * and a confirmation code and link are mailed.
 */
export async function registerAccount(app: App, input: RegistrationInput): Promise<UserRow> {
  const mode = app.config.registration;
  if (mode === "closed") throw forbidden("Registration is closed on this instance");
  assertRulesAccepted(app, input.acceptRules);
  if (mode === "captcha") {
    if (!input.captchaId || !input.captchaAnswer)
      throw new AppError(
        400,
        "CAPTCHA_REQUIRED",
        "Solve the captcha (GET /api/auth/captcha) and send captchaId and captchaAnswer",
      );
    if (!(await solveCaptcha(app.db, app.clock.now(), input.captchaId, input.captchaAnswer))) {
      throw new AppError(400, "CAPTCHA_FAILED", "The captcha answer is wrong or expired; get a new captcha");
    }
  }
  if (RESERVED_USERNAMES.has(input.username.toLowerCase())) throw fieldError("username", "is reserved");
  const user = await createUser(app.db, app.clock.now(), {
    email: input.email.trim(),
    username: input.username,
    password: input.password,
    displayName: input.displayName,
  });
  await sendEmailVerification(app, user);
  await app.hooks.emit("user:created", { userId: user.id });
  return user;
}
