import { defineService, type App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import type { Db } from "../../db";
import { AppError, fieldError, rateLimited } from "../../lib/errors";
import { sha256Hex, verifyPassword, randomBytes } from "../../lib/crypto";
import type { UserRow } from "../users/table";
import { ensureSystemAccount } from "../users/system";
import { consumeCode, findLiveCode, issueCode } from "./codes";
import { loginCodeMail, sendMail } from "./notify";
import { textFor } from "../users/language";
import { inTransaction, type Scope } from "../../db/transaction";

export type TwoFactorMethod = "totp" | "email" | "messenger";

const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** a new login code is sent at most this often; until then the last one stays valid */
const LOGIN_CODE_RESEND_MS = 60_000;
const RECOVERY_CODE_COUNT = 10;
/** wrong second-factor codes per account per window before further tries are refused */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 10 * 60_000;
const TOTP_PERIOD = 30;

const invalidCode = () => new AppError(401, "TWO_FACTOR_INVALID_CODE", "The two-factor code is wrong");

/** Per-account counters of wrong codes, on the rate-limit counters (shared by every node with pubsub.url). */
const failures = defineService("auth:two-factor-failures", (app) => rateLimiter(app, "two-factor"));

async function assertNotLockedOut(app: App, userId: number): Promise<void> {
  const d = await app.services.get(failures).exhausted(String(userId), MAX_FAILURES, app.clock.now());
  if (!d.allowed) throw rateLimited(d.retryAfter);
}

async function noteFailure(app: App, userId: number): Promise<void> {
  await app.services.get(failures).check(String(userId), MAX_FAILURES, FAILURE_WINDOW_MS, app.clock.now());
}

const normaliseRecovery = (code: string) => code.replace(/[\s-]/g, "").toLowerCase();
const hashRecovery = (userId: number, code: string) => sha256Hex(`recovery:${userId}:${normaliseRecovery(code)}`);

/** Ten fresh recovery codes ("xxxxx-xxxxx"); only their hashes are stored. */
async function replaceRecoveryCodes(app: App, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = randomBytes(5).toString("hex");
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
  await app.db
    .updateTable("users")
    .set({ recovery_codes: JSON.stringify(codes.map((c) => hashRecovery(userId, c))), updated_at: app.clock.now() })
    .where("id", "=", userId)
    .execute();
  return codes;
}

/** Uses up a recovery code; false when it is not one of USER's unused codes. */
async function consumeRecoveryCode(app: App, user: UserRow, code: string): Promise<boolean> {
  if (!user.recovery_codes || normaliseRecovery(code).length !== 10) return false;
  const hashes = JSON.parse(user.recovery_codes) as string[];
  const h = hashRecovery(user.id, code);
  if (!hashes.includes(h)) return false;
  // compare-and-set on the stored list so one code cannot be spent twice by racing requests
  const res = await app.db
    .updateTable("users")
    .set({ recovery_codes: JSON.stringify(hashes.filter((x) => x !== h)), updated_at: app.clock.now() })
    .where("id", "=", user.id)
    .where("recovery_codes", "=", user.recovery_codes)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** otplib and its hash libraries, loaded when a code is first made or checked: most starts never need them. */
const totp = () => import("otplib");

/** Checks a TOTP code against SECRET; returns its time step, or null. Codes of the previous and next step count. */
async function totpStep(app: App, secret: string, code: string, afterStep: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const { verify } = await totp();
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(app.clock.now() / 1000),
    epochTolerance: TOTP_PERIOD,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  }).catch(() => null);
  return result?.valid ? (result as { timeStep: number }).timeStep : null;
}

/** Uses a TOTP code of USER's enabled secret (each time step once). */
async function consumeTotp(app: App, user: UserRow, code: string): Promise<boolean> {
  if (!user.totp_secret) return false;
  const step = await totpStep(app, user.totp_secret, code, user.totp_last_step);
  if (step === null) return false;
  const res = await app.db
    .updateTable("users")
    .set({ totp_last_step: step })
    .where("id", "=", user.id)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** First step of TOTP enrolment: a new secret (pending until a code proves the app has it). */
export async function startTotpSetup(app: App, user: UserRow): Promise<{ secret: string; otpauthUrl: string }> {
  const { generateSecret, generateURI } = await totp();
  const secret = generateSecret();
  await app.db
    .updateTable("users")
    .set({ totp_pending_secret: secret, updated_at: app.clock.now() })
    .where("id", "=", user.id)
    .execute();
  const issuer = new URL(app.config.baseUrl).host;
  return { secret, otpauthUrl: generateURI({ issuer, label: user.username, secret }) };
}

/**
 * Second step: a correct code from the pending secret turns TOTP on; returns new recovery codes.
 * When two-factor protection is already on, the password is needed too: otherwise a stolen
 * session could swap the authenticator and void the owner's recovery codes.
 */
export async function enableTotp(app: App, user: UserRow, code: string, password?: string): Promise<string[]> {
  if (!user.totp_pending_secret) throw fieldError("code", "start with POST /api/auth/2fa/totp/setup first");
  if (user.two_factor_method !== "none") {
    if (password === undefined) throw fieldError("password", "is required while two-factor protection is on");
    await confirmIdentity(app, user, { password });
  }
  await assertNotLockedOut(app, user.id);
  const step = await totpStep(app, user.totp_pending_secret, code.trim(), null);
  if (step === null) {
    await noteFailure(app, user.id);
    throw invalidCode();
  }
  await app.db
    .updateTable("users")
    .set({
      totp_secret: user.totp_pending_secret,
      totp_pending_secret: null,
      totp_last_step: step,
      two_factor_method: "totp",
      updated_at: app.clock.now(),
    })
    .where("id", "=", user.id)
    .execute();
  return replaceRecoveryCodes(app, user.id);
}

/**
 * Proves it is really the person: the password, or a current second-factor code
 * (TOTP or recovery code). A wrong password is a field error; a wrong code TWO_FACTOR_INVALID_CODE.
 */
async function confirmIdentity(app: App, user: UserRow, proof: { password?: string; code?: string }): Promise<void> {
  if (proof.password !== undefined) {
    const okPassword = user.password_hash
      ? await verifyPassword(proof.password, user.password_hash).catch(() => false)
      : false;
    if (!okPassword) throw fieldError("password", "is incorrect");
    return;
  }
  if (proof.code !== undefined) {
    await assertNotLockedOut(app, user.id);
    const code = proof.code.trim();
    if ((await consumeTotp(app, user, code)) || (await consumeRecoveryCode(app, user, code))) return;
    await noteFailure(app, user.id);
    throw invalidCode();
  }
  throw fieldError("password", "is required (or give a two-factor code)");
}

/** Turns two-factor protection off after a password or code check. */
export async function disableTwoFactor(
  app: App,
  user: UserRow,
  proof: { password?: string; code?: string },
): Promise<void> {
  await confirmIdentity(app, user, proof);
  await clearTwoFactor(app.db, app.clock.now(), user.id);
}

/** Turns two-factor protection off without a proof: an administrator's reset for a locked-out person. */
export async function clearTwoFactor(db: Db, now: number, userId: number): Promise<void> {
  await db
    .updateTable("users")
    .set({
      two_factor_method: "none",
      totp_secret: null,
      totp_pending_secret: null,
      totp_last_step: null,
      recovery_codes: null,
      updated_at: now,
    })
    .where("id", "=", userId)
    .execute();
}

/**
 * Chooses how the second factor is asked for. TOTP needs an enrolled authenticator; e-mail
 * needs a confirmed address. Recovery codes are made when the account has none yet.
 */
export async function setTwoFactorMethod(
  app: App,
  user: UserRow,
  input: { method: TwoFactorMethod; password?: string; code?: string },
): Promise<{ twoFactorMethod: TwoFactorMethod; recoveryCodes?: string[] }> {
  if (input.method === "totp" && !user.totp_secret)
    throw fieldError("method", "set up an authenticator first: POST /api/auth/2fa/totp/setup, then totp/enable");
  if (input.method === "email" && (!user.email || !user.email_verified_at))
    throw fieldError("method", "confirm your e-mail address first");
  await confirmIdentity(app, user, input);
  await app.db
    .updateTable("users")
    .set({ two_factor_method: input.method, updated_at: app.clock.now() })
    .where("id", "=", user.id)
    .execute();
  const hasCodes = user.recovery_codes && (JSON.parse(user.recovery_codes) as string[]).length > 0;
  return hasCodes
    ? { twoFactorMethod: input.method }
    : { twoFactorMethod: input.method, recoveryCodes: await replaceRecoveryCodes(app, user.id) };
}

/** Sends a login code by e-mail or messenger unless a recent one is still live. */
async function deliverLoginCode(app: App, user: UserRow, method: "email" | "messenger"): Promise<void> {
  const now = app.clock.now();
  const purpose = method === "email" ? "login_email" : "login_messenger";
  const live = await findLiveCode(app.db, now, user.id, purpose);
  if (live && now - live.created_at < LOGIN_CODE_RESEND_MS && live.attempts === 0) return;
  const issue = (scope: Scope) =>
    issueCode(scope, now, { userId: user.id, purpose, ttlMs: LOGIN_CODE_TTL_MS, withCode: true, withToken: false });
  if (method === "email") {
    const email = user.email!;
    const t = await textFor(user.language);
    await inTransaction(app.storage, async (scope) => {
      const { code } = await issue(scope);
      await sendMail(app, scope, loginCodeMail(t, email, code!));
    });
  } else {
    const { code } = await inTransaction(app.storage, issue);
    // the chats feature posts the code from the system account into the person's chats
    await ensureSystemAccount(app.db, now);
    await app.hooks.emit("auth:deliver-code", { userId: user.id, code: code! });
  }
}

/**
 * The second step of signing in, per the session state table: with protection on and no
 * code → TWO_FACTOR_REQUIRED / TWO_FACTOR_EMAIL_REQUIRED (code e-mailed) /
 * TWO_FACTOR_TELEGRAM_REQUIRED (code sent as a chat message); a wrong code →
 * TWO_FACTOR_INVALID_CODE. Recovery codes work for every method.
 */
export async function checkSecondFactor(app: App, user: UserRow, twoFactorCode: string | undefined): Promise<void> {
  const method = user.two_factor_method;
  if (method === "none") return;
  const code = twoFactorCode?.trim();
  if (!code) {
    if (method === "totp")
      throw new AppError(401, "TWO_FACTOR_REQUIRED", "Enter the code from your authenticator app (twoFactorCode)");
    await deliverLoginCode(app, user, method);
    if (method === "email")
      throw new AppError(
        401,
        "TWO_FACTOR_EMAIL_REQUIRED",
        "A sign-in code was sent to your e-mail; repeat with twoFactorCode",
      );
    throw new AppError(
      401,
      "TWO_FACTOR_TELEGRAM_REQUIRED",
      "A sign-in code was sent to your chats; repeat with twoFactorCode",
    );
  }
  await assertNotLockedOut(app, user.id);
  let passed = false;
  if (method === "totp") passed = await consumeTotp(app, user, code);
  else if (/^\d{6}$/.test(code))
    passed =
      (await consumeCode(
        app.db,
        app.clock.now(),
        user.id,
        method === "email" ? "login_email" : "login_messenger",
        code,
      )) === "ok";
  if (!passed) passed = await consumeRecoveryCode(app, user, code);
  if (!passed) {
    await noteFailure(app, user.id);
    throw invalidCode();
  }
}

/** How many unused recovery codes USER has left. */
export const recoveryCodesLeft = (user: UserRow): number =>
  user.recovery_codes ? (JSON.parse(user.recovery_codes) as string[]).length : 0;
