import type { Language } from "../../locales/languages";
import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { precompiled } from "../../db/compiled";
import { AppError, validationError, type FieldErrors } from "../../lib/errors";
import { hashPassword } from "../../lib/crypto";
import { voidPasswordSecrets } from "../auth/codes";
import { newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import type { UserRow } from "./table";
import { isUniqueViolation } from "../../db/errors";

export const USERNAME_RE = /^[A-Za-z0-9_]{3,32}$/;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export function usernameProblem(username: string, opts: { bot?: boolean } = {}): string | null {
  if (!USERNAME_RE.test(username)) return "must be 3 to 32 characters of letters, digits and _";
  const endsBot = username.toLowerCase().endsWith("_bot");
  if (opts.bot && !endsBot) return "a bot username must end with _bot";
  if (!opts.bot && endsBot) return "only bots have usernames ending with _bot";
  return null;
}
export const emailProblem = (email: string): string | null =>
  email.length <= 254 && EMAIL_RE.test(email) ? null : "must be a valid e-mail address";
export const passwordProblem = (password: string): string | null =>
  password.length < 8
    ? "must be at least 8 characters"
    : password.length > 128
      ? "must be at most 128 characters"
      : null;

export interface NewUser {
  email?: string | null;
  username: string;
  password?: string | null;
  displayName?: string;
  isAdmin?: boolean;
  isBot?: boolean;
  isSystem?: boolean;
  verified?: boolean;
  /** the language the server writes to the person in (a code of src/locales/languages.ts); absent: the default */
  language?: Language | null;
}

/** The field errors of a new account's INPUT that do not depend on which accounts exist. */
export function newUserProblems(input: NewUser): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, problem: string | null) => {
    if (problem) (errors[field] ??= []).push(problem);
  };
  add("username", usernameProblem(input.username, { bot: input.isBot }));
  if (!input.isBot && !input.isSystem) {
    add("email", input.email ? emailProblem(input.email) : "is required");
    add("password", input.password ? passwordProblem(input.password) : "is required");
  }
  const displayName = (input.displayName ?? input.username).trim();
  if (displayName.length === 0 || displayName.length > 64) add("displayName", "must be 1 to 64 characters");
  return errors;
}

/** Creates an account after validating every field; duplicate e-mail or username is a field error. */
export async function createUser(db: Db, now: number, input: NewUser): Promise<UserRow> {
  const errors = newUserProblems(input);
  if (Object.keys(errors).length) throw validationError(errors);
  const displayName = (input.displayName ?? input.username).trim();

  if (input.email && (await findUserByEmail(db, input.email))) errors.email = ["is already registered"];
  if (await findUserByUsername(db, input.username)) errors.username = ["is taken"];
  if (Object.keys(errors).length) throw validationError(errors);

  const passwordHash = input.password ? await hashPassword(input.password) : null;
  try {
    return await db
      .insertInto("users")
      .values({
        cuid: newCuid(),
        email: input.email ?? null,
        username: input.username,
        username_lower: input.username.toLowerCase(),
        display_name: displayName,
        password_hash: passwordHash,
        is_admin: input.isAdmin ? 1 : 0,
        is_bot: input.isBot ? 1 : 0,
        is_system: input.isSystem ? 1 : 0,
        email_verified_at: input.verified ? now : null,
        language: input.language ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (err) {
    // a concurrent registration won a unique index between our check and insert
    const message = String(err);
    if (isUniqueViolation(err))
      throw validationError(
        message.includes("email") ? { email: ["is already registered"] } : { username: ["is taken"] },
      );
    throw err;
  }
}

// every send to a person looks the person up by id: compiled once (db/compiled.ts)
const userByIdQuery = precompiled((db: Db, v: { id: number }) =>
  db.selectFrom("users").selectAll().where("id", "=", v.id).where("deleted_at", "is", null),
);

export const findUserById = async (db: Db, id: number): Promise<UserRow | undefined> =>
  (await userByIdQuery(db, { id }))[0];

/** The accounts with these IDS, deleted ones included (authors of old messages); any order. */
export const findUsersByIds = (db: Db, ids: readonly number[]): Promise<UserRow[]> =>
  ids.length ? db.selectFrom("users").selectAll().where("id", "in", ids).execute() : Promise.resolve([]);

/** The accounts with these CUIDS, deleted ones included; any order. */
export const findUsersByCuids = (db: Db, cuids: readonly string[]): Promise<UserRow[]> =>
  cuids.length ? db.selectFrom("users").selectAll().where("cuid", "in", cuids).execute() : Promise.resolve([]);

export const findUserByCuid = (db: Db, cuid: string) =>
  db.selectFrom("users").selectAll().where("cuid", "=", cuid).where("deleted_at", "is", null).executeTakeFirst();

/** The unique lookup key of a username as typed (case-insensitive, an optional leading @). */
export const usernameKey = (username: string) => username.replace(/^@/, "").toLowerCase();

export const findUserByUsername = (db: Db, username: string) =>
  db
    .selectFrom("users")
    .selectAll()
    .where("username_lower", "=", usernameKey(username))
    .where("deleted_at", "is", null)
    .executeTakeFirst();

/**
 * Accounts (people and bots; not the system account nor deleted ones), newest first, paged
 * by id (the cursor's time is informational); every one of them when no limit is given.
 */
export async function listAccounts(
  db: Db,
  page: { cursor: Cursor | null; limit?: number },
): Promise<{ items: UserRow[]; nextCursor: string | null }> {
  let q = db.selectFrom("users").selectAll().where("deleted_at", "is", null).where("is_system", "=", 0);
  if (page.cursor) q = q.where("id", "<", page.cursor.id);
  q = q.orderBy("id", "desc");
  if (page.limit === undefined) return { items: await q.execute(), nextCursor: null };
  return pageOf(await q.limit(page.limit + 1).execute(), page.limit, (u) => ({ t: u.created_at, id: u.id }));
}

export const findUserByEmail = (db: Db, email: string) =>
  db
    .selectFrom("users")
    .selectAll()
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .where("deleted_at", "is", null)
    .executeTakeFirst();

/** Looks a person up by username, failing with the field named. */
export async function requireUserByUsername(db: Db, username: string): Promise<UserRow> {
  const user = await findUserByUsername(db, username);
  if (!user) throw new AppError(404, "NOT_FOUND", `User ${username} not found`);
  return user;
}

/**
 * Sets USER's password and voids their outstanding reset links and sign-in codes, for every
 * way a password changes (the person, a reset link, an admin, the CLI).
 */
export async function setPassword(
  app: Pick<App, "storage" | "clock">,
  userId: number,
  password: string,
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw validationError({ password: [problem] });
  const hash = await hashPassword(password);
  const now = app.clock.now();
  await inTransaction(app.storage, async ({ db }) => {
    await db.updateTable("users").set({ password_hash: hash, updated_at: now }).where("id", "=", userId).execute();
    await voidPasswordSecrets(db, now, userId);
  });
}

export async function setDisabled(db: Db, now: number, userId: number, disabled: boolean): Promise<void> {
  await db
    .updateTable("users")
    .set({ disabled_at: disabled ? now : null, updated_at: now })
    .where("id", "=", userId)
    .execute();
}
