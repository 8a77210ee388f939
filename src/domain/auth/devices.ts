import type { Db } from "../../db";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";

/** Long-lived httpOnly cookie naming the browser or program, stored on each of its sessions. */
export const DEVICE_COOKIE = "device_id";
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 400 * 86400;

export const newDeviceId = (): string => randomToken(18);
/** A device id as we issue it: base64url of 18 bytes. Anything else is replaced by a fresh one. */
export const isWellFormedDeviceId = (value: string | undefined): value is string =>
  !!value && /^[A-Za-z0-9_-]{24}$/.test(value);

export const deviceBanned = () => new AppError(403, "DEVICE_BANNED", "This device is banned");

export async function isDeviceBanned(db: Db, deviceId: string | null | undefined): Promise<boolean> {
  if (!deviceId) return false;
  const row = await db.selectFrom("banned_devices").select("id").where("device_id", "=", deviceId).executeTakeFirst();
  return row !== undefined;
}

/** Refuses a banned device with DEVICE_BANNED (403). */
export async function assertDeviceAllowed(db: Db, deviceId: string | null | undefined): Promise<void> {
  if (await isDeviceBanned(db, deviceId)) throw deviceBanned();
}

/** Bans every device USER has signed in from; returns how many devices were newly banned. */
export async function banUserDevices(db: Db, now: number, userId: number): Promise<number> {
  const devices = await db
    .selectFrom("sessions")
    .select("device_id")
    .distinct()
    .where("user_id", "=", userId)
    .where("device_id", "is not", null)
    .execute();
  let banned = 0;
  for (const { device_id } of devices) {
    const res = await db
      .insertInto("banned_devices")
      .values({ device_id: device_id!, user_id: userId, created_at: now })
      .onConflict((oc) => oc.column("device_id").doNothing())
      .executeTakeFirst();
    banned += Number(res.numInsertedOrUpdatedRows ?? 0n);
  }
  return banned;
}

/** Lifts the bans placed through USER's sessions; returns how many were lifted. */
export async function unbanUserDevices(db: Db, userId: number): Promise<number> {
  const res = await db.deleteFrom("banned_devices").where("user_id", "=", userId).executeTakeFirst();
  return Number(res.numDeletedRows);
}
