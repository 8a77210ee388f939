import { defineService, type App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import { sha256Hex, verifyPassword } from "../../lib/crypto";
import { AppError } from "../../lib/errors";
import type { UserRow } from "../users/table";

// A real bcrypt hash of a random string: unknown e-mails still pay for one verification,
// so response time does not reveal which addresses have accounts.
const DUMMY_HASH = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.nMv1mYJ3bZ8uP9H5fJ2fQqGqGqGq";

/** Per-account counters of wrong passwords and the locks they set (shared by every node with pubsub.url). */
const counters = defineService("auth:password-attempts", (app) => rateLimiter(app, "password-attempts"));

/**
 * Whose wrong passwords count together. An account's count is bound to its current password
 * (a digest of the hash), so setting a new one (a reset link, an admin) lifts a lock at once.
 * An address without an account is counted and locked the same way, so a lock tells nothing
 * about which addresses have accounts.
 */
function subjectOf(user: UserRow | undefined, email: string): string {
  if (user?.password_hash) return `account:${user.id}:${sha256Hex(user.password_hash).slice(0, 16)}`;
  return `email:${sha256Hex(email.trim().toLowerCase())}`;
}

const accountLocked = (retryAfter: number) =>
  new AppError(
    429,
    "RATE_LIMITED",
    "Too many wrong passwords for this account: password sign-in is paused for a while",
    { scope: "account" },
    { retryAfter },
  );

/**
 * Checks PASSWORD against USER's (or, for an e-mail without an account, against nothing, at
 * the same cost). After limits.passwordFailuresPerAccount wrong passwords within
 * limits.accountLockMinutes, the account's password checks are refused (429 RATE_LIMITED)
 * for limits.accountLockMinutes, the right password included: guessing from many addresses
 * gains nothing. Sessions already signed in are untouched, so a lock never signs anyone out.
 */
export async function checkAccountPassword(
  app: App,
  user: UserRow | undefined,
  email: string,
  password: string,
): Promise<boolean> {
  const limiter = app.services.get(counters);
  const subject = subjectOf(user, email);
  const lockMs = app.config["limits.accountLockMinutes"] * 60_000;
  const assertUnlocked = async () => {
    const locked = await limiter.exhausted(`lock:${subject}`, 1, app.clock.now());
    if (!locked.allowed) throw accountLocked(locked.retryAfter);
  };
  await assertUnlocked();
  const valid = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH).catch(() => false);
  // again after the (queued) verification: guesses sent all at once, from many addresses, all
  // passed the first check before any was counted; those answered after the lock learn nothing
  await assertUnlocked();
  if (valid && user?.password_hash) return true;
  const now = app.clock.now();
  const failures = await limiter.check(
    `failures:${subject}`,
    app.config["limits.passwordFailuresPerAccount"] - 1,
    lockMs,
    now,
  );
  if (!failures.allowed) await limiter.check(`lock:${subject}`, 1, lockMs, now);
  return false;
}
