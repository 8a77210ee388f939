import type { App } from "../../app";
import { revokeOtherSessions, revokeSession } from "./service";

/**
 * Revokes USER's sessions except KEEP (null: all of them) and tells each revoked session's
 * streams to close ('session:revoked'). Returns how many were revoked.
 */
export async function revokeSessionsAndNotify(app: App, userId: number, keepSessionId: number | null): Promise<number> {
  const revoked = await revokeOtherSessions(app.db, app.clock.now(), userId, keepSessionId);
  for (const sessionCuid of revoked) app.hooks.publish({ type: "session:revoked", to: [userId], userId, sessionCuid });
  return revoked.length;
}

/** Signs SESSION out (logout, or "sign that device out") and tells its streams to close. */
export async function revokeSessionAndNotify(
  app: App,
  session: { id: number; cuid: string; user_id: number },
): Promise<void> {
  await revokeSession(app.db, app.clock.now(), session.id);
  app.hooks.publish({
    type: "session:revoked",
    to: [session.user_id],
    userId: session.user_id,
    sessionCuid: session.cuid,
  });
}
