import type { App } from "../../app";
import { findUserByEmail } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { AppError } from "../../lib/errors";
import { verifyPassword } from "../../lib/crypto";
import { checkSecondFactor } from "../../domain/auth/two-factor";
import { loginLimiter } from "./limits";

// A real bcrypt hash of a random string: unknown e-mails still pay for one verification,
// so response time does not reveal which addresses have accounts.
const DUMMY_HASH = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.nMv1mYJ3bZ8uP9H5fJ2fQqGqGqGq";

/** Checks credentials, account state and the second factor; returns the account allowed to sign in. */
export async function signIn(
  app: App,
  input: { email: string; password: string; twoFactorCode?: string; ip: string },
): Promise<UserRow> {
  await loginLimiter(app).consume(input.ip);
  const user = await findUserByEmail(app.db, input.email.trim());
  const valid = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH).catch(() => false);
  if (!user || !user.password_hash || !valid || user.is_bot || user.is_system) {
    throw new AppError(401, "INVALID_CREDENTIALS", "Wrong e-mail or password");
  }
  if (user.disabled_at) throw new AppError(403, "ACCOUNT_DISABLED", "This account is disabled");
  if (app.config["auth.requireVerifiedEmail"] && !user.email_verified_at) {
    throw new AppError(403, "EMAIL_NOT_VERIFIED", "Confirm your e-mail address first");
  }
  await checkSecondFactor(app, user, input.twoFactorCode);
  return user;
}
