import type { App } from "../../app";
import { fieldError, rateLimited } from "../../lib/errors";
import type { UserRow } from "../users/table";
import { consumeCode, consumeToken, findLiveCode, issueCode } from "./codes";
import { sendMail, verificationMail } from "./notify";
import { textFor } from "../users/language";
import { inTransaction } from "../../db/transaction";

const VERIFY_TTL_MS = 24 * 3600_000;
/** a new verification mail at most once a minute */
const RESEND_EVERY_MS = 60_000;

/** Mails USER a confirmation code and link (a new pair replaces the old one). */
export async function sendEmailVerification(app: App, user: UserRow): Promise<void> {
  const email = user.email;
  if (!email) return;
  const t = await textFor(user.language);
  await inTransaction(app.storage, async (scope) => {
    const { code, token } = await issueCode(scope, app.clock.now(), {
      userId: user.id,
      purpose: "email_verify",
      ttlMs: VERIFY_TTL_MS,
      withCode: true,
      withToken: true,
    });
    await sendMail(app, scope, verificationMail(app, t, email, code!, token!));
  });
}

/** Sends the verification again, at most once a minute; false when the address is already confirmed. */
export async function resendEmailVerification(app: App, user: UserRow): Promise<boolean> {
  if (user.email_verified_at) return false;
  const now = app.clock.now();
  const live = await findLiveCode(app.db, now, user.id, "email_verify");
  if (live && now - live.created_at < RESEND_EVERY_MS)
    throw rateLimited(Math.ceil((live.created_at + RESEND_EVERY_MS - now) / 1000));
  await sendEmailVerification(app, user);
  return true;
}

async function markVerified(app: App, userId: number): Promise<void> {
  const now = app.clock.now();
  await app.db
    .updateTable("users")
    .set({ email_verified_at: now, updated_at: now })
    .where("id", "=", userId)
    .where("email_verified_at", "is", null)
    .execute();
}

/** Confirms the signed-in USER's address with the six-digit code from the mail. */
export async function verifyEmailWithCode(app: App, user: UserRow, code: string): Promise<void> {
  if (user.email_verified_at) return;
  const result = await consumeCode(app.db, app.clock.now(), user.id, "email_verify", code.trim());
  if (result === "wrong") throw fieldError("code", "is wrong");
  if (result === "none")
    throw fieldError("code", "has expired or was used up; ask for a new one (POST /api/auth/email/resend)");
  await markVerified(app, user.id);
}

/** Confirms an address with the link token (no session needed); returns the account's id. */
export async function verifyEmailWithToken(app: App, token: string): Promise<number> {
  const userId = await consumeToken(app.db, app.clock.now(), "email_verify", token.trim());
  if (userId === null) throw fieldError("token", "is invalid, used or expired");
  await markVerified(app, userId);
  return userId;
}
