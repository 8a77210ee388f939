import type { Db } from "../../db";
import type { Scope } from "../../db/transaction";
import { randomInt, sha256Hex } from "../../lib/crypto";
import { randomToken } from "../../lib/ids";
import type { AuthCodePurpose, AuthCodeRow } from "./table";

/** Wrong guesses after which a short code stops working. */
export const MAX_CODE_ATTEMPTS = 5;

export const sixDigitCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, "0");

const hashCode = (purpose: AuthCodePurpose, userId: number, code: string) => sha256Hex(`${purpose}:${userId}:${code}`);
const hashToken = (token: string) => sha256Hex(`token:${token}`);

export interface IssuedCode {
  row: AuthCodeRow;
  /** a six-digit code, when asked for */
  code?: string;
  /** a long link token, when asked for */
  token?: string;
}

/**
 * Issues a one-time secret for PURPOSE, replacing any earlier live one of the same purpose
 * (only the newest code works). Only hashes are stored.
 */
export async function issueCode(
  scope: Scope,
  now: number,
  input: { userId: number; purpose: AuthCodePurpose; ttlMs: number; withCode: boolean; withToken: boolean },
): Promise<IssuedCode> {
  const code = input.withCode ? sixDigitCode() : undefined;
  const token = input.withToken ? randomToken(32) : undefined;
  const replace = async (trx: Db) => {
    await voidCodes(trx, now, input.userId, [input.purpose]);
    return trx
      .insertInto("auth_codes")
      .values({
        user_id: input.userId,
        purpose: input.purpose,
        code_hash: code ? hashCode(input.purpose, input.userId, code) : null,
        token_hash: token ? hashToken(token) : null,
        expires_at: now + input.ttlMs,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  };
  // in the caller's transaction: the code and the job that mails it commit together
  const row = await replace(scope.db);
  return { row, code, token };
}

/** The secrets a password change voids: each would set a password or finish a sign-in without the new one. */
const PASSWORD_BOUND_PURPOSES: readonly AuthCodePurpose[] = [
  "password_reset",
  "login_email",
  "login_messenger",
  "sign_in_link",
];

/**
 * Uses up every outstanding reset link, sign-in code and sign-in link of USER, so a link
 * mailed before a password change cannot undo it. A pending e-mail confirmation stays: it
 * proves an address, not a password.
 */
export const voidPasswordSecrets = (db: Db, now: number, userId: number): Promise<void> =>
  voidCodes(db, now, userId, PASSWORD_BOUND_PURPOSES);

/** Uses up every outstanding secret of USER for one of PURPOSES. */
async function voidCodes(db: Db, now: number, userId: number, purposes: readonly AuthCodePurpose[]): Promise<void> {
  await db
    .updateTable("auth_codes")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("purpose", "in", purposes)
    .where("used_at", "is", null)
    .execute();
}

/** The newest live (unused, unexpired) secret of PURPOSE for USER, if any. */
export const findLiveCode = (db: Db, now: number, userId: number, purpose: AuthCodePurpose) =>
  db
    .selectFrom("auth_codes")
    .selectAll()
    .where("user_id", "=", userId)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("id", "desc")
    .executeTakeFirst();

export type CodeCheck = "ok" | "wrong" | "none";

/**
 * Checks a six-digit CODE against USER's live secret of PURPOSE and uses it up when right.
 * A wrong guess counts; after MAX_CODE_ATTEMPTS the code is dead ("none" from then on).
 */
export async function consumeCode(
  db: Db,
  now: number,
  userId: number,
  purpose: AuthCodePurpose,
  code: string,
): Promise<CodeCheck> {
  const row = await findLiveCode(db, now, userId, purpose);
  if (!row || !row.code_hash || row.attempts >= MAX_CODE_ATTEMPTS) return "none";
  if (row.code_hash !== hashCode(purpose, userId, code)) {
    await db
      .updateTable("auth_codes")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", row.id)
      .execute();
    return "wrong";
  }
  // compare-and-set: two racing requests cannot both use one code
  const used = await db
    .updateTable("auth_codes")
    .set({ used_at: now })
    .where("id", "=", row.id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return used.numUpdatedRows > 0n ? "ok" : "none";
}

/** Uses up a link TOKEN of PURPOSE; returns the owner's user id, or null when unknown, used or expired. */
export async function consumeToken(
  db: Db,
  now: number,
  purpose: AuthCodePurpose,
  token: string,
): Promise<number | null> {
  const row = await db
    .updateTable("auth_codes")
    .set({ used_at: now })
    .where("token_hash", "=", hashToken(token))
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
  return row?.user_id ?? null;
}
