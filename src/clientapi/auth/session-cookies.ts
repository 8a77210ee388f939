import type { App } from "../../app";
import { createSession } from "../../domain/sessions/service";
import {
  assertDeviceAllowed,
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_SECONDS,
  isWellFormedDeviceId,
  newDeviceId,
} from "../../domain/auth/devices";
import type { UserRow } from "../../domain/users/table";
import { cookieValue, serializeCookie } from "../../http/cookies";
import { addSetCookies, sessionCookies, sessionTtls } from "../../http/context";

type SetLike = { headers: Record<string, unknown> };

/** The caller's device id cookie, when it is one we issued. */
export const deviceIdOf = (request: Request): string | undefined => {
  const v = cookieValue(request.headers.get("cookie"), DEVICE_COOKIE);
  return isWellFormedDeviceId(v) ? v : undefined;
};

/** Refuses a banned device before any credential is checked (DEVICE_BANNED). */
export const assertRequestDeviceAllowed = (app: App, request: Request) =>
  assertDeviceAllowed(app.db, deviceIdOf(request));

/**
 * Signs USER in on this device: opens a session bound to the device id (issuing the
 * long-lived device cookie on first sign-in) and sets the session cookies on the response.
 */
export async function openSession(
  app: App,
  ctx: { request: Request; ip: string; set: unknown },
  user: UserRow,
): Promise<void> {
  let deviceId = deviceIdOf(ctx.request);
  await assertDeviceAllowed(app.db, deviceId);
  const cookies: string[] = [];
  if (!deviceId) {
    deviceId = newDeviceId();
    cookies.push(
      serializeCookie(app, DEVICE_COOKIE, deviceId, { httpOnly: true, maxAgeSeconds: DEVICE_COOKIE_MAX_AGE_SECONDS }),
    );
  }
  const { tokens } = await createSession(app.db, app.clock.now(), sessionTtls(app), {
    userId: user.id,
    userAgent: ctx.request.headers.get("user-agent") ?? "",
    ip: ctx.ip,
    deviceId,
  });
  addSetCookies(ctx.set as SetLike, [...cookies, ...sessionCookies(app, tokens)]);
}
