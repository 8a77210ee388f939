import type { App } from "../../app";
import { revokeSessionsAndNotify } from "../sessions/revoke";
import { setDisabled } from "../users/service";

/**
 * Disables an account and signs it out everywhere (its open streams close), or enables it
 * again. A disabled account is refused at sign-in and on every request (ACCOUNT_DISABLED).
 */
export async function setAccountDisabled(
  app: App,
  userId: number,
  disabled: boolean,
): Promise<{ sessionsRevoked: number }> {
  await setDisabled(app.db, app.clock.now(), userId, disabled);
  return { sessionsRevoked: disabled ? await revokeSessionsAndNotify(app, userId, null) : 0 };
}
