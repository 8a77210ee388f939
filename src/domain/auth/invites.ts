import type { Db } from "../../db";
import { toIso } from "../../lib/clock";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import type { AuthInviteRow } from "./table";

export const INVITE_DEFAULT_MAX_USES = 1;
export const INVITE_DEFAULT_EXPIRES_IN_HOURS = 7 * 24;
export const INVITE_MAX_USES_LIMIT = 10_000;
export const INVITE_EXPIRES_IN_HOURS_LIMIT = 365 * 24;

export interface NewInvite {
  maxUses?: number;
  expiresInHours?: number;
}

/** The sign-up link of CODE: the register page with the code filled in. */
export const inviteUrl = (baseUrl: string, code: string) => `${baseUrl}/register?invite=${encodeURIComponent(code)}`;

/**
 * A new invite code: short enough to type from a printed note, long enough that guessing one is
 * hopeless, and never starting with "-", which a command line reads as an option
 * (`socialctl invite revoke CODE` would answer "unknown option").
 */
export function newInviteCode(): string {
  for (;;) {
    const code = randomToken(12);
    if (!code.startsWith("-")) return code;
  }
}

/** Makes an invite; CREATED_BY is the administrator's id (null from the CLI). */
export async function createInvite(
  db: Db,
  now: number,
  createdBy: number | null,
  input: NewInvite,
): Promise<AuthInviteRow> {
  const maxUses = input.maxUses ?? INVITE_DEFAULT_MAX_USES;
  const hours = input.expiresInHours ?? INVITE_DEFAULT_EXPIRES_IN_HOURS;
  if (!Number.isInteger(maxUses) || maxUses < 1 || maxUses > INVITE_MAX_USES_LIMIT)
    throw fieldError("maxUses", `must be a whole number from 1 to ${INVITE_MAX_USES_LIMIT}`);
  if (!Number.isInteger(hours) || hours < 1 || hours > INVITE_EXPIRES_IN_HOURS_LIMIT)
    throw fieldError("expiresInHours", `must be a whole number from 1 to ${INVITE_EXPIRES_IN_HOURS_LIMIT}`);
  return db
    .insertInto("auth_invites")
    .values({
      code: newInviteCode(),
      created_by: createdBy,
      max_uses: maxUses,
      expires_at: now + hours * 3600_000,
      revoked_at: null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Every invite (or the one with CODE), newest first, with the username of whoever made it. */
export async function listInvites(
  db: Db,
  code?: string,
): Promise<Array<AuthInviteRow & { created_by_username: string | null }>> {
  let q = db
    .selectFrom("auth_invites")
    .leftJoin("users", "users.id", "auth_invites.created_by")
    .selectAll("auth_invites")
    .select("users.username as created_by_username");
  if (code !== undefined) q = q.where("auth_invites.code", "=", code);
  return q.orderBy("auth_invites.id", "desc").execute();
}

/** Revokes the invite CODE: it admits nobody from now on (already made accounts stay). */
export async function revokeInvite(db: Db, now: number, code: string): Promise<AuthInviteRow> {
  const row = await db
    .updateTable("auth_invites")
    .set((eb) => ({ revoked_at: eb.fn.coalesce("revoked_at", eb.val(now)) }))
    .where("code", "=", code)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound("No such invite");
  return row;
}

export type InviteState = "live" | "revoked" | "expired" | "used_up";

/** An invite as administrators see it, in the API and the CLI alike. */
export function describeInvite(row: AuthInviteRow, baseUrl: string, now: number, createdBy: string | null) {
  return {
    code: row.code,
    url: inviteUrl(baseUrl, row.code),
    maxUses: row.max_uses,
    uses: row.uses,
    expiresAt: toIso(row.expires_at),
    revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at),
    createdAt: toIso(row.created_at),
    createdBy,
    state: inviteState(row, now),
  };
}

export function inviteState(row: AuthInviteRow, now: number): InviteState {
  if (row.revoked_at !== null) return "revoked";
  if (row.expires_at <= now) return "expired";
  if (row.uses >= row.max_uses) return "used_up";
  return "live";
}

/** The error a sign-up with an invite that cannot admit gets: unknown and revoked read the same. */
function inviteRefused(state: InviteState | "unknown"): AppError {
  switch (state) {
    case "expired":
      return new AppError(400, "INVITE_EXPIRED", "This invite has expired; ask whoever invited you for a new one");
    case "used_up":
      return new AppError(400, "INVITE_USED_UP", "This invite has been used as many times as it allows");
    default:
      return new AppError(400, "INVITE_INVALID", "This invite code is not valid; check it or ask for a new one");
  }
}

async function stateOfCode(db: Db, now: number, code: string): Promise<InviteState | "unknown"> {
  const row = await db.selectFrom("auth_invites").selectAll().where("code", "=", code.trim()).executeTakeFirst();
  return row ? inviteState(row, now) : "unknown";
}

/** Throws the matching INVITE_* error unless CODE names an invite that admits someone now. */
export async function checkInvite(db: Db, now: number, code: string): Promise<void> {
  const state = await stateOfCode(db, now, code);
  if (state !== "live") throw inviteRefused(state);
}

/**
 * Uses up one admission of CODE, or throws the matching INVITE_* error. One conditional
 * UPDATE does both the check and the count, so concurrent sign-ups on the last use cannot
 * both pass: the database lets one of them change the row.
 */
export async function consumeInvite(db: Db, now: number, code: string): Promise<void> {
  const used = await db
    .updateTable("auth_invites")
    .set((eb) => ({ uses: eb("uses", "+", 1) }))
    .where("code", "=", code.trim())
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .whereRef("uses", "<", "max_uses")
    .returning("id")
    .executeTakeFirst();
  if (used) return;
  const state = await stateOfCode(db, now, code);
  // "live" here means a concurrent sign-up took the last use between the two statements
  throw inviteRefused(state === "live" ? "used_up" : state);
}

/** Gives back a use of CODE taken by a sign-up that then made no account. */
export async function returnInviteUse(db: Db, code: string): Promise<void> {
  await db
    .updateTable("auth_invites")
    .set((eb) => ({ uses: eb("uses", "-", 1) }))
    .where("code", "=", code.trim())
    .where("uses", ">", 0)
    .execute();
}
