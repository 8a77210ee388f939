import type { App } from "../../app";
import { fieldError } from "../../lib/errors";
import { findUserByEmail, passwordProblem, setPassword } from "../users/service";
import type { UserRow } from "../users/table";
import { revokeSessionsAndNotify } from "../sessions/revoke";
import { consumeToken, issueCode } from "./codes";
import { checkAccountPassword } from "./password-attempts";
import { passwordResetMail, sendMail } from "./notify";
import { textFor } from "../users/language";
import { inTransaction } from "../../db/transaction";

const RESET_TTL_MS = 3600_000;

/** Changes the password after checking the current one; signs out every other session. */
export async function changePassword(
  app: App,
  user: UserRow,
  keepSessionId: number,
  currentPassword: string,
  newPassword: string,
): Promise<number> {
  const problem = passwordProblem(newPassword);
  if (problem) throw fieldError("newPassword", problem);
  // a wrong current password counts toward the account's lock, as at sign-in: a stolen session is no oracle
  if (!(await checkAccountPassword(app, user, user.email ?? "", currentPassword)))
    throw fieldError("currentPassword", "is incorrect");
  await setPassword(app, user.id, newPassword);
  return revokeSessionsAndNotify(app, user.id, keepSessionId);
}

/**
 * Mails a reset link when EMAIL belongs to an account that can sign in. Says nothing
 * either way, so the answer does not reveal which addresses have accounts.
 */
export async function requestPasswordReset(app: App, email: string): Promise<void> {
  const user = await findUserByEmail(app.db, email.trim());
  if (!user || !user.email || user.is_bot || user.is_system || user.disabled_at) return;
  const address = user.email;
  const t = await textFor(user.language);
  await inTransaction(app.storage, async (scope) => {
    const { token } = await issueCode(scope, app.clock.now(), {
      userId: user.id,
      purpose: "password_reset",
      ttlMs: RESET_TTL_MS,
      withCode: false,
      withToken: true,
    });
    await sendMail(app, scope, passwordResetMail(app, t, address, token!));
  });
}

/**
 * Sets a new password with a reset token (single use, one hour). The mail proved the
 * address, so it counts as confirmed. Every session is signed out.
 */
export async function resetPassword(app: App, token: string, newPassword: string): Promise<void> {
  // check the password before using up the token, so a typo does not burn the link
  const problem = passwordProblem(newPassword);
  if (problem) throw fieldError("newPassword", problem);
  const userId = await consumeToken(app.db, app.clock.now(), "password_reset", token.trim());
  if (userId === null) throw fieldError("token", "is invalid, used or expired");
  const now = app.clock.now();
  await setPassword(app, userId, newPassword);
  await app.db
    .updateTable("users")
    .set({ email_verified_at: now })
    .where("id", "=", userId)
    .where("email_verified_at", "is", null)
    .execute();
  await revokeSessionsAndNotify(app, userId, null);
}
