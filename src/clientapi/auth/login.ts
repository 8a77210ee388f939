import type { App } from "../../app";
import { findUserByEmail } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { AppError } from "../../lib/errors";
import { checkAccountPassword } from "../../domain/auth/password-attempts";
import { checkSecondFactor } from "../../domain/auth/two-factor";
import { loginLimiter } from "./limits";

/** Checks credentials, account state and the second factor; returns the account allowed to sign in. */
export async function signIn(
  app: App,
  input: { email: string; password: string; twoFactorCode?: string; ip: string },
): Promise<UserRow> {
  await loginLimiter(app).consume(input.ip);
  const email = input.email.trim();
  const user = await findUserByEmail(app.db, email);
  const valid = await checkAccountPassword(app, user, email, input.password);
  if (!user || !valid || user.is_bot || user.is_system) {
    throw new AppError(401, "INVALID_CREDENTIALS", "Wrong e-mail or password");
  }
  if (user.disabled_at) throw new AppError(403, "ACCOUNT_DISABLED", "This account is disabled");
  if (app.config["auth.requireVerifiedEmail"] && !user.email_verified_at) {
    throw new AppError(403, "EMAIL_NOT_VERIFIED", "Confirm your e-mail address first");
  }
  await checkSecondFactor(app, user, input.twoFactorCode);
  return user;
}
