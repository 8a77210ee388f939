import type { Db } from "../../db";
import { fieldError, notFound } from "../../lib/errors";
import { sha256Hex } from "../../lib/crypto";
import { randomToken } from "../../lib/ids";
import type { QrLoginRow } from "./table";

export const QR_TTL_MS = 2 * 60_000;
export const QR_POLL_INTERVAL_MS = 2000;

export type QrStatus = "PENDING" | "APPROVED" | "CLAIMED" | "EXPIRED";

const hashQr = (token: string) => sha256Hex(`qr:${token}`);

export function qrStatus(row: QrLoginRow, now: number): QrStatus {
  if (row.claimed_at) return "CLAIMED";
  if (row.expires_at <= now) return "EXPIRED";
  return row.approved_at ? "APPROVED" : "PENDING";
}

/** A new QR login request; the token is shown once (as the link in the QR code). */
export async function startQrLogin(db: Db, now: number): Promise<{ token: string; expiresAt: number }> {
  const token = randomToken(24);
  await db.deleteFrom("qr_logins").where("expires_at", "<=", now - 3600_000).execute();
  await db.insertInto("qr_logins").values({ token_hash: hashQr(token), expires_at: now + QR_TTL_MS, created_at: now }).execute();
  return { token, expiresAt: now + QR_TTL_MS };
}

async function requireQr(db: Db, token: string): Promise<QrLoginRow> {
  const row = await db.selectFrom("qr_logins").selectAll().where("token_hash", "=", hashQr(token)).executeTakeFirst();
  if (!row) throw notFound("No such QR login");
  return row;
}

export async function getQrStatus(db: Db, now: number, token: string): Promise<QrStatus> {
  return qrStatus(await requireQr(db, token), now);
}

const refuse = (status: QrStatus) =>
  fieldError("token", status === "EXPIRED" ? "has expired" : status === "PENDING" ? "is not approved yet" : "was already used");

/** A signed-in person confirms the login on their device: USER will be signed in by the claimer. */
export async function approveQrLogin(db: Db, now: number, token: string, userId: number): Promise<void> {
  const row = await requireQr(db, token);
  const status = qrStatus(row, now);
  if (status !== "PENDING") throw refuse(status === "APPROVED" ? "CLAIMED" : status);
  const res = await db
    .updateTable("qr_logins")
    .set({ user_id: userId, approved_at: now })
    .where("id", "=", row.id)
    .where("approved_at", "is", null)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw refuse("CLAIMED");
}

/** The program that started the login collects it, once; returns the approving account's id. */
export async function claimQrLogin(db: Db, now: number, token: string): Promise<number> {
  const row = await requireQr(db, token);
  const status = qrStatus(row, now);
  if (status !== "APPROVED") throw refuse(status);
  const res = await db.updateTable("qr_logins").set({ claimed_at: now }).where("id", "=", row.id).where("claimed_at", "is", null).executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw refuse("CLAIMED");
  return row.user_id!;
}
