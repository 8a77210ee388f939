import type { Db } from "../../db";
import { fieldError, notFound } from "../../lib/errors";
import { sha256Hex } from "../../lib/crypto";
import { randomToken } from "../../lib/ids";
import type { QrLoginRow } from "./table";

export const QR_TTL_MS = 2 * 60_000;
export const QR_POLL_INTERVAL_MS = 2000;

export type QrStatus = "PENDING" | "APPROVED" | "CLAIMED" | "EXPIRED" | "REFUSED";

const hashQr = (token: string) => sha256Hex(`qr:${token}`);

export function qrStatus(row: QrLoginRow, now: number): QrStatus {
  if (row.claimed_at) return "CLAIMED";
  if (row.refused_at) return "REFUSED";
  if (row.expires_at <= now) return "EXPIRED";
  return row.approved_at ? "APPROVED" : "PENDING";
}

/** A new QR login request from DEVICE; the token is shown once (as the link in the QR code). */
export async function startQrLogin(
  db: Db,
  now: number,
  device: { userAgent: string; ip: string },
): Promise<{ token: string; expiresAt: number }> {
  const token = randomToken(24);
  await db
    .deleteFrom("qr_logins")
    .where("expires_at", "<=", now - 3600_000)
    .execute();
  await db
    .insertInto("qr_logins")
    .values({
      token_hash: hashQr(token),
      expires_at: now + QR_TTL_MS,
      created_at: now,
      user_agent: device.userAgent.slice(0, 512),
      ip: device.ip,
    })
    .execute();
  return { token, expiresAt: now + QR_TTL_MS };
}

async function requireQr(db: Db, token: string): Promise<QrLoginRow> {
  const row = await db.selectFrom("qr_logins").selectAll().where("token_hash", "=", hashQr(token)).executeTakeFirst();
  if (!row) throw notFound("No such QR login");
  return row;
}

export interface QrRequest {
  status: QrStatus;
  /** the device that asked: shown to the person deciding */
  device: { userAgent: string; ip: string; requestedAt: number };
}

export async function getQrRequest(db: Db, now: number, token: string): Promise<QrRequest> {
  const row = await requireQr(db, token);
  return {
    status: qrStatus(row, now),
    device: { userAgent: row.user_agent ?? "", ip: row.ip ?? "", requestedAt: row.created_at },
  };
}

const refuse = (status: QrStatus) =>
  fieldError(
    "token",
    status === "EXPIRED"
      ? "has expired"
      : status === "PENDING"
        ? "is not approved yet"
        : status === "REFUSED"
          ? "was refused"
          : "was already used",
  );

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
    .where("refused_at", "is", null)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw refuse("CLAIMED");
}

/** The signed-in person says no: the asking device is told (REFUSED) and can never claim it. */
export async function refuseQrLogin(db: Db, now: number, token: string): Promise<void> {
  const row = await requireQr(db, token);
  const status = qrStatus(row, now);
  if (status !== "PENDING") throw refuse(status === "APPROVED" ? "CLAIMED" : status);
  const res = await db
    .updateTable("qr_logins")
    .set({ refused_at: now })
    .where("id", "=", row.id)
    .where("approved_at", "is", null)
    .where("refused_at", "is", null)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw refuse("CLAIMED");
}

/** The program that started the login collects it, once; returns the approving account's id. */
export async function claimQrLogin(db: Db, now: number, token: string): Promise<number> {
  const row = await requireQr(db, token);
  const status = qrStatus(row, now);
  if (status !== "APPROVED") throw refuse(status);
  const res = await db
    .updateTable("qr_logins")
    .set({ claimed_at: now })
    .where("id", "=", row.id)
    .where("claimed_at", "is", null)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) throw refuse("CLAIMED");
  return row.user_id!;
}
